// THE TABLE of commands Keel judges read-only, with every option each one has and what it does
// (see options.ts for the kinds). An option missing from a command's row makes the command ask;
// so does a command missing from the table. Each row names the man page it was read from, on
// Debian 12 (bookworm): coreutils 9.1, findutils 4.9.0, grep 3.8, diffutils 3.8, file 5.44,
// sed 4.9, gawk 5.2.1, mawk 1.3.4, tar 1.34, tree 2.1.0, ripgrep 13.0.0, debianutils 5.7, bash 5.2.
// `scripts/check-reader-table.mjs` compares the rows with the man pages installed on a machine.
import { type OptionTable, optionTable } from "./options.js";

/** What a command's operands are once its options are read. */
export type Operands =
  /** Paths it reads. */
  | "paths"
  /** Not paths (names, numbers, text). */
  | "none"
  /** The first operand is a pattern unless an option gave one; the rest are paths (grep, rg). */
  | "pattern"
  /** The first operand is a program text unless an option gave one (sed, awk); the rest are paths. */
  | "script";

export interface ReaderSpec {
  /** Man page (section) and package version the options were read from. */
  source: string;
  options: OptionTable;
  operands: Operands;
  /** Options that supply the pattern or program instead of the first operand. */
  supplies?: readonly string[];
  /** Options end at the first operand (awk), instead of GNU's permutation. */
  stopAtOperand?: boolean;
  /** `-NUM` is an option (head -5, grep -3). */
  numbers?: boolean;
  /** A bash builtin: never looked up in PATH, so a file of that name in the workspace cannot stand in. */
  builtin?: boolean;
  /** Accepts any option (bash's echo prints unknown ones; test takes expressions). */
  anyOption?: boolean;
}

const HELP = "--help --version";

const spec = (
  source: string,
  lines: string[],
  operands: Operands,
  extra: Partial<Omit<ReaderSpec, "source" | "options" | "operands">> = {},
): ReaderSpec => ({ source, options: optionTable(lines), operands, ...extra });

const ls = spec(
  "ls(1) coreutils 9.1",
  [
    "-a --all -A --almost-all --author -b --escape -B --ignore-backups -c -C -d --directory -D --dired",
    "-f --file-type --full-time -g --group-directories-first -G --no-group -h --human-readable --si",
    "-H --dereference-command-line --dereference-command-line-symlink-to-dir -i --inode -k --kibibytes",
    "-l -m -n --numeric-uid-gid -N --literal -o -p -q --hide-control-chars --show-control-chars",
    "-Q --quote-name -r --reverse -R --recursive -s --size -S -t -u -U -v -x -X -Z --context --zero -1",
    "-F",
    HELP,
    "--color --classify --hyperlink: optional",
    "--block-size --format --hide --indicator-style -I --ignore --quoting-style --sort --time: value",
    "--time-style -T --tabsize -w --width: value",
    // With -R, -L walks into every symlinked directory, wherever it leads.
    "-L --dereference: follows",
  ],
  "paths",
);

const cat = spec(
  "cat(1) coreutils 9.1",
  [
    "-A --show-all -b --number-nonblank -e -E --show-ends -n --number -s --squeeze-blank -t -T --show-tabs -u -v --show-nonprinting",
    HELP,
  ],
  "paths",
);

const head = spec(
  "head(1) coreutils 9.1",
  ["-q --quiet --silent -v --verbose -z --zero-terminated", HELP, "-c --bytes -n --lines: value"],
  "paths",
  { numbers: true },
);

const tail = spec(
  "tail(1) coreutils 9.1",
  [
    "-f -F --retry -q --quiet --silent -v --verbose -z --zero-terminated",
    HELP,
    "--follow: optional",
    "-c --bytes -n --lines --max-unchanged-stats --pid -s --sleep-interval: value",
  ],
  "paths",
  { numbers: true },
);

const wc = spec(
  "wc(1) coreutils 9.1",
  ["-c --bytes -m --chars -l --lines -L --max-line-length -w --words", HELP, "--files0-from: names"],
  "paths",
);

const grep = spec(
  "grep(1) GNU grep 3.8",
  [
    "-E --extended-regexp -F --fixed-strings -G --basic-regexp -P --perl-regexp -i -y --ignore-case",
    "--no-ignore-case -v --invert-match -w --word-regexp -x --line-regexp -c --count",
    "-L --files-without-match -l --files-with-matches -o --only-matching -q --quiet --silent",
    "-s --no-messages -b --byte-offset -H --with-filename -h --no-filename -n --line-number",
    "-T --initial-tab -Z --null -a --text -I -r --recursive --line-buffered -U --binary -z --null-data",
    "--no-group-separator --help -V --version",
    "--color --colour: optional",
    "-e --regexp -m --max-count --label -A --after-context -B --before-context -C --context: value",
    "--group-separator --binary-files -D --devices -d --directories --exclude --exclude-dir --include: value",
    "-f --file --exclude-from: read",
    "-R --dereference-recursive: follows",
  ],
  "pattern",
  { supplies: ["-e", "--regexp", "-f", "--file"], numbers: true },
);

const rg = spec(
  "rg(1) ripgrep 13.0.0 (and --hostname-bin from 14)",
  [
    "--auto-hybrid-regex --binary --block-buffered -b --byte-offset -s --case-sensitive --column",
    "-c --count --count-matches --crlf --debug --files -l --files-with-matches --files-without-match",
    "-F --fixed-strings --glob-case-insensitive --heading -. --hidden -i --ignore-case",
    "--ignore-file-case-insensitive --include-zero -v --invert-match --json --line-buffered",
    "-n --line-number -x --line-regexp --max-columns-preview --mmap -U --multiline --multiline-dotall",
    "--no-config -I --no-filename --no-heading --no-ignore --no-ignore-dot --no-ignore-exclude",
    "--no-ignore-files --no-ignore-global --no-ignore-messages --no-ignore-parent --no-ignore-vcs",
    "-N --no-line-number --no-messages --no-mmap --no-pcre2-unicode --no-require-git --no-unicode",
    "-0 --null --null-data --one-file-system -o --only-matching --passthru -P --pcre2 --pcre2-version",
    "-p --pretty -q --quiet -S --smart-case --stats -a --text --trim --type-list -u --unrestricted",
    "--vimgrep -H --with-filename -w --word-regexp --no-follow --no-search-zip --no-pre -h --help -V --version",
    "-A --after-context -B --before-context -C --context --color --colors --context-separator: value",
    "--dfa-size-limit -E --encoding --engine --field-context-separator --field-match-separator: value",
    "-g --glob --iglob -M --max-columns -m --max-count --max-depth --max-filesize --path-separator: value",
    "--pre-glob --regex-size-limit -e --regexp -r --replace --sort --sortr -j --threads -t --type: value",
    "--type-add --type-clear -T --type-not: value",
    "-f --file --ignore-file: read",
    "--pre --hostname-bin: run",
    // Runs gzip, xz, … from PATH for compressed files.
    "-z --search-zip: runs",
    "-L --follow: follows",
  ],
  "pattern",
  { supplies: ["-e", "--regexp", "-f", "--file", "--files", "--type-list"] },
);

const file = spec(
  "file(1) file 5.44",
  [
    "--apple -b --brief -c --checking-printout -d -E --extension -h --no-dereference -i --mime",
    "--mime-type --mime-encoding -k --keep-going -l --list -L --dereference -N --no-pad -n --no-buffer",
    "-r --raw -s --special-files -S --no-sandbox -v --version -z --uncompress -Z --uncompress-noreport",
    "-0 --print0 --help",
    "-e --exclude --exclude-quiet -F --separator -P --parameter: value",
    "-m --magic-file: read",
    "-f --files-from: names",
    // -C writes the compiled magic file; -p resets access times.
    "-C --compile -p --preserve-date: writes",
  ],
  "paths",
);

const stat = spec(
  "stat(1) coreutils 9.1",
  ["-L --dereference -f --file-system -t --terse", HELP, "--cached -c --format --printf: value"],
  "paths",
);

const du = spec(
  "du(1) coreutils 9.1",
  [
    "-0 --null -a --all --apparent-size -b --bytes -c --total -D --dereference-args -H",
    "-h --human-readable --inodes -k -l --count-links -m -P --no-dereference -S --separate-dirs --si",
    "-s --summarize -x --one-file-system",
    HELP,
    "--time: optional",
    "-B --block-size -d --max-depth -t --threshold --time-style --exclude: value",
    "-X --exclude-from: read",
    "--files0-from: names",
    "-L --dereference: follows",
  ],
  "paths",
);

const tree = spec(
  "tree(1) tree 2.1.0",
  [
    "-a -d -f -x -q -N -Q -p -u -g -s -h -D -F -v -t -c -U -r -i -A -S -n -C -X -J",
    "--gitignore --ignore-case --matchdirs --metafirst --prune --noreport --si --du --inodes --device",
    "--dirsfirst --filesfirst --nolinks --fflinks --fromfile --info --help --version",
    "-L -P -I -H -T --charset --filelimit --timefmt --sort: value",
    "--gitfile --infofile --hintro --houtro: read",
    "-o: write",
    // -R writes a 00Tree.html into every directory.
    "-R: writes",
    "-l: follows",
  ],
  "paths",
);

const diff = spec(
  "diff(1) diffutils 3.8",
  [
    "--normal -q --brief -s --report-identical-files -c -u -e --ed -n --rcs -y --side-by-side",
    "--left-column --suppress-common-lines -p --show-c-function -t --expand-tabs -T --initial-tab",
    // -l pipes the output through pr(1) from PATH, as any reader's own helpers are.
    "--suppress-blank-empty -l --paginate -N --new-file --unidirectional-new-file",
    "--ignore-file-name-case --no-ignore-file-name-case -i --ignore-case -E --ignore-tab-expansion",
    "-Z --ignore-trailing-space -b --ignore-space-change -w --ignore-all-space -B --ignore-blank-lines",
    "-a --text --strip-trailing-cr -d --minimal --speed-large-files --help -v --version",
    "--context --unified --color: optional",
    "-C -U -W --width -F --show-function-line --label --tabsize -x --exclude -S --starting-file: value",
    "-I --ignore-matching-lines -D --ifdef --line-format --horizon-lines --palette: value",
    "--old-group-format --new-group-format --unchanged-group-format --changed-group-format: value",
    "--old-line-format --new-line-format --unchanged-line-format: value",
    "-X --exclude-from --from-file --to-file: read",
    // Recursive diff follows symlinks into whatever they point at, unless --no-dereference.
    "-r --recursive: follows",
    "--no-dereference: nofollow",
  ],
  "paths",
);

const cmp = spec(
  "cmp(1) diffutils 3.8",
  [
    "-b --print-bytes -l --verbose -s --quiet --silent --help -v --version",
    "-i --ignore-initial -n --bytes: value",
  ],
  "paths",
);

const sort = spec(
  "sort(1) coreutils 9.1",
  [
    "-b --ignore-leading-blanks -d --dictionary-order -f --ignore-case -g --general-numeric-sort",
    "-i --ignore-nonprinting -M --month-sort -h --human-numeric-sort -n --numeric-sort -R --random-sort",
    "-r --reverse -V --version-sort -c -C --debug -m --merge -s --stable -u --unique -z --zero-terminated",
    HELP,
    "--check: optional",
    "--sort --batch-size -k --key -S --buffer-size -t --field-separator --parallel: value",
    "--random-source: read",
    "-o --output -T --temporary-directory: write",
    "--compress-program: run",
    "--files0-from: names",
  ],
  "paths",
);

const cut = spec(
  "cut(1) coreutils 9.1",
  [
    "-n --complement -s --only-delimited -z --zero-terminated",
    HELP,
    "-b --bytes -c --characters -d --delimiter -f --fields --output-delimiter: value",
  ],
  "paths",
);

const nl = spec(
  "nl(1) coreutils 9.1",
  [
    "-p --no-renumber",
    HELP,
    "-b --body-numbering -d --section-delimiter -f --footer-numbering -h --header-numbering: value",
    "-i --line-increment -l --join-blank-lines -n --number-format -s --number-separator: value",
    "-v --starting-line-number -w --number-width: value",
  ],
  "paths",
);

const realpath = spec(
  "realpath(1) coreutils 9.1",
  [
    "-e --canonicalize-existing -m --canonicalize-missing -L --logical -P --physical -q --quiet",
    "-s --strip --no-symlinks -z --zero",
    HELP,
    "--relative-to --relative-base: read",
  ],
  "paths",
);

const readlink = spec(
  "readlink(1) coreutils 9.1",
  [
    "-f --canonicalize -e --canonicalize-existing -m --canonicalize-missing -n --no-newline -q --quiet",
    "-s --silent -v --verbose -z --zero",
    HELP,
  ],
  "paths",
);

const checksum = (name: string, extra: string[] = []) =>
  spec(
    `${name}(1) coreutils 9.1`,
    [
      "-b --binary --tag -t --text -z --zero --ignore-missing --quiet --status --strict -w --warn",
      HELP,
      // -c reads the files a checksum list names.
      "-c --check: lists",
      ...extra,
    ],
    "paths",
  );

const sed = spec(
  "sed(1) GNU sed 4.9",
  [
    "-n --quiet --silent --debug --posix -E -r --regexp-extended -s --separate --sandbox",
    "-u --unbuffered -z --null-data --follow-symlinks",
    HELP,
    "-l --line-length: value",
    "-e --expression: script",
    "-f --file: scriptFile",
    "-i --in-place: writesOptional",
  ],
  "script",
  { supplies: ["-e", "--expression", "-f", "--file"] },
);

const awk = spec(
  "gawk(1) GNU awk 5.2.1, mawk(1) 1.3.4",
  [
    "-b --characters-as-bytes -c --traditional -C --copyright -g --gen-pot -h --help -I --trace",
    "-M --bignum -n --non-decimal-data -N --use-lc-numeric -O --optimize -P --posix -r --re-interval",
    "-s --no-optimize -S --sandbox -t --lint-old -V --version",
    "-L --lint: optional",
    "-F --field-separator -v --assign: value",
    "-e --source: script",
    "-f --file -E --exec -i --include: scriptFile",
    // --load loads a shared library into awk.
    "-l --load: run",
    // Debugger commands come from a file or the terminal.
    "-D --debug: unsupported",
    "-d --dump-variables -o --pretty-print -p --profile: writesOptional",
    // mawk's -W takes sub-options, among them `exec file`.
    "-W: unsupported",
  ],
  "script",
  { supplies: ["-e", "--source", "-f", "--file", "-E", "--exec"], stopAtOperand: true },
);

const none = (source: string, lines: string[], extra: Partial<ReaderSpec> = {}) =>
  spec(source, lines, "none", extra);

/** Commands read-only by their options and operands. `find`, `tar` and `git` have their own rules. */
export const READERS: ReadonlyMap<string, ReaderSpec> = new Map<string, ReaderSpec>([
  ["ls", ls],
  ["cat", cat],
  ["head", head],
  ["tail", tail],
  ["wc", wc],
  ["grep", grep],
  ["egrep", grep],
  ["fgrep", grep],
  ["rg", rg],
  ["file", file],
  ["stat", stat],
  ["du", du],
  ["tree", tree],
  ["diff", diff],
  ["cmp", cmp],
  ["sort", sort],
  ["cut", cut],
  ["nl", nl],
  ["realpath", realpath],
  ["readlink", readlink],
  ["md5sum", checksum("md5sum")],
  ["sha1sum", checksum("sha1sum")],
  ["sha256sum", checksum("sha256sum")],
  ["sha512sum", checksum("sha512sum")],
  ["b2sum", checksum("b2sum", ["-l --length: value"])],
  ["sed", sed],
  ["awk", awk],
  ["gawk", awk],
  ["mawk", awk],
  ["which", none("which(1) debianutils 5.7", ["-a -s"])],
  ["type", none("bash(1) 5.2, SHELL BUILTIN COMMANDS", ["-a -f -p -P -t"], { builtin: true })],
  ["echo", none("bash(1) 5.2, SHELL BUILTIN COMMANDS", [], { builtin: true, anyOption: true })],
  ["pwd", none("bash(1) 5.2, SHELL BUILTIN COMMANDS", ["-L -P"], { builtin: true })],
  ["true", none("bash(1) 5.2, SHELL BUILTIN COMMANDS", [], { builtin: true, anyOption: true })],
  ["false", none("bash(1) 5.2, SHELL BUILTIN COMMANDS", [], { builtin: true, anyOption: true })],
  // test only looks at names (existence, type); `[` is the same builtin.
  ["test", none("bash(1) 5.2, SHELL BUILTIN COMMANDS", [], { builtin: true, anyOption: true })],
  ["[", none("bash(1) 5.2, SHELL BUILTIN COMMANDS", [], { builtin: true, anyOption: true })],
  ["whoami", none("whoami(1) coreutils 9.1", [HELP])],
  [
    "id",
    none("id(1) coreutils 9.1", [
      "-a -Z --context -g --group -G --groups -n --name -r --real -u --user -z --zero",
      HELP,
    ]),
  ],
  [
    "uname",
    none("uname(1) coreutils 9.1", [
      "-a --all -s --kernel-name -n --nodename -r --kernel-release -v --kernel-version -m --machine",
      "-p --processor -i --hardware-platform -o --operating-system",
      HELP,
    ]),
  ],
  ["basename", none("basename(1) coreutils 9.1", ["-a --multiple -z --zero", HELP, "-s --suffix: value"])],
  ["dirname", none("dirname(1) coreutils 9.1", ["-z --zero", HELP])],
  [
    "seq",
    none("seq(1) coreutils 9.1", ["-w --equal-width", HELP, "-f --format -s --separator: value"], {
      numbers: true,
    }),
  ],
  ["sleep", none("sleep(1) coreutils 9.1", [HELP])],
  [
    "tr",
    none("tr(1) coreutils 9.1", [
      "-c -C --complement -d --delete -s --squeeze-repeats -t --truncate-set1",
      HELP,
    ]),
  ],
]);

/**
 * Commands one might take for readers, and why Keel does not: they run programs or write files
 * through features the checker cannot bound, so they always need approval (or a rule).
 */
export const NOT_READERS: ReadonlyMap<string, string> = new Map([
  ["less", "less(1) 590: LESSOPEN runs an input preprocessor, and its !, | and v commands run programs"],
  ["more", "more(1) util-linux 2.38: its ! and v commands run a shell and an editor"],
  ["most", "a pager whose commands run programs"],
  ["pg", "a pager whose ! command runs a shell"],
  [
    "man",
    "man(1) man-db 2.11: runs groff preprocessors and a pager; -P, -H, --html and MANPAGER name programs",
  ],
  ["xargs", "xargs(1) findutils 4.9.0: runs the command it is given with arguments read from its input"],
  ["parallel", "parallel(1) 20221122: runs its command line through a shell"],
  ["watch", "watch(1) procps 4.0.2: runs its command line through sh -c, again and again"],
  ["env", "env(1) coreutils 9.1: runs a program; -S splits a string into a command line"],
  ["xxd", "xxd(1): `xxd in out` and -r write files"],
  ["vi", "an editor: writes files and runs shell commands"],
  ["vim", "an editor: writes files and runs shell commands"],
]);
