// @keel/ext-skills: Agent Skills (SKILL.md folders) for Keel — discovery from every usual place,
// a budgeted catalog announced in capability notices, the Skill tool, /skill commands, live reload.
export {
  budgetChars,
  DEFAULT_BUDGET_FRACTION,
  entryChars,
  fitBudget,
  modelSkills,
  skillEntry,
} from "./catalog.js";
export { type Discovery, discoverSkills, MAX_SKILL_FILE_BYTES, SKILL_FILE } from "./discover.js";
export {
  listSkillFiles,
  readSkillFile,
  resolveInside,
  type SkillFileContent,
  type SkillFileError,
  type SkillFileListing,
} from "./files.js";
export { type FrontMatterError, type ParsedSkillFile, parseSkillFile } from "./frontmatter.js";
export { skillContent, splitArguments, substituteArguments } from "./render.js";
export { PROJECT_SKILL_DIRS, type RootsInput, skillRoots } from "./roots.js";
export {
  type DiagnosticLevel,
  diagnosticLine,
  type Skill,
  type SkillDiagnostic,
  type SkillMeta,
  type SkillRoot,
  type SkillScope,
} from "./types.js";
export { splitAllowedTools, validateFrontMatter } from "./validate.js";
export { type SkillWatcher, watchSkillRoots } from "./watch.js";
