// What /init asks the model: look at the project, then write (or improve) its AGENTS.md, the
// context file Keel and other agents read at the start of every session.

export const INIT_PROMPT = `Look at this project and write an AGENTS.md file at its root: the instructions a coding agent needs to work here well, read at the start of every session.

First look around: the README, the package manifests and lock files, the build, test and lint configuration, CI workflows, the top-level folders, and any existing AGENTS.md, CLAUDE.md, .cursorrules or CONTRIBUTING.md. Run nothing that changes the project.

Then write AGENTS.md with, concisely:
- what the project is, in two or three sentences;
- the layout: which folder holds what, and where to start;
- the exact commands to install, build, run, test (a single test too) and lint, as they work here;
- the conventions the code follows (language level, formatting, error handling, naming, tests) that are not obvious from one file;
- anything surprising: generated files not to edit, environment needed, slow or flaky steps.

Keep it short (well under 200 lines), factual and specific to this repository; leave out generic advice. If AGENTS.md exists already, improve it: keep what is still right, fix what is wrong, add what is missing.`;
