// @keel/ext-todo: the todo list extension (UpdateTodos, open-item reminder, checklist widget).
import { todoExtension } from "./extension.js";

export { TODO_WIDGET, todoExtension } from "./extension.js";
export {
  checklistLines,
  type InvalidTodos,
  MAX_TODOS,
  openTodosReminder,
  type Todo,
  type TodoState,
  type TodoStatus,
  validateTodos,
} from "./todos.js";
export default todoExtension;
