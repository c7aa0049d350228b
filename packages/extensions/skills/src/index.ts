// @keel/ext-skills: Agent Skills (SKILL.md folders) for Keel — discovery from every usual place,
// a budgeted catalog announced in capability notices, the Skill tool, /skill commands, live reload.
import { skillsExtension } from "./extension.js";

// splitAllowedTools: the SDK's splitToolRules, under the name this package has exported.
export { splitToolRules as splitAllowedTools } from "@keel/extension-sdk";
export {
  budgetChars,
  DEFAULT_BUDGET_FRACTION,
  modelSkills,
  skillEntry,
} from "./catalog.js";
export { type Discovery, discoverSkills, MAX_SKILL_FILE_BYTES, SKILL_FILE } from "./discover.js";
export {
  SKILLS_GROUP,
  SKILLS_HEADING,
  SKILLS_INSTRUCTIONS,
  type SkillsConfig,
  SkillsConfigSchema,
  skillsExtension,
} from "./extension.js";
export {
  listSkillFiles,
  readSkillFile,
  resolveInside,
  type SkillFileContent,
  type SkillFileError,
  type SkillFileListing,
} from "./files.js";
export { type FrontMatterError, type ParsedSkillFile, parseSkillFile } from "./frontmatter.js";
export { type CatalogView, catalogView, skillsListing } from "./listing.js";
export { skillContent, splitArguments, substituteArguments } from "./render.js";
export { PROJECT_SKILL_DIRS, type RootsInput, skillRoots } from "./roots.js";
export { SkillSet } from "./skill-set.js";
export { SKILL_TOOL, type SkillsInstance, type SkillsState } from "./skill-tool.js";
export { projectSkillsPreview, type TrustPreviewInput } from "./trust.js";
export {
  type DiagnosticLevel,
  diagnosticLine,
  type Skill,
  type SkillDiagnostic,
  type SkillMeta,
  type SkillRoot,
  type SkillScope,
} from "./types.js";
export { validateFrontMatter } from "./validate.js";
export { type SkillWatcher, watchSkillRoots } from "./watch.js";
export default skillsExtension;
