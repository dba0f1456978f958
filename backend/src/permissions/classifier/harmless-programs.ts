/**
 * The harmless-argument lists (harmless.ts): for each program a rule may rate safe, the options known to be
 * harmless and what its operands are. Left out on purpose: options that run a command (`sort
 * --compress-program`, `rg --pre`, `git -c`, `less +!cmd`), write a file (`sort -o`, `wget -P`), read their
 * arguments from a file (`wc --files0-from`), move the working directory unsaid, or talk to another server
 * (`curl --proxy`, `npm --registry`, `kubectl --kubeconfig`, `docker -H`). Unlisted programs are safe only
 * with no arguments. Left out whole: programs that load code the workspace can name — `python -m pip` (the
 * working directory comes first on sys.path), yarn (`yarnPath`), cargo (`rust-toolchain.toml`).
 */
import {
  type Call,
  checkArguments,
  checkSubcommand,
  listed,
  movedTo,
  type OperandCheck,
  type ProgramSpec,
  spec,
  subcommands,
  unknownOperand,
  unknownOption,
} from "./harmless";
import { type Classification, dangerous, shown } from "./types";
import { assignedName, isHarmlessVariable, isShellVariable } from "./variables";

// --- read-only files -------------------------------------------------------------------------------

listed(
  "cat",
  spec(
    `-A -b -e -E -n -s -t -T -u -v --show-all --number-nonblank --number --squeeze-blank --show-ends
     --show-tabs --show-nonprinting`,
    "paths",
  ),
);
listed(
  "ls ll la dir vdir",
  spec(
    `-a -A -b -B -c -C -d -f -F -g -G -h -H -i -k -l -L -m -n -N -o -p -q -Q -r -R -s -S -t -u -U -v -x -X
     -Z -1 -I=T -T=T -w=T --all --almost-all --author --escape --block-size=T --ignore-backups --color
     --color? --directory --classify --classify? --file-type --format=T --full-time
     --group-directories-first --no-group --human-readable --si --dereference-command-line
     --dereference-command-line-symlink-to-dir --hide=T --hyperlink --hyperlink? --indicator-style=T
     --inode --ignore=T --kibibytes --dereference --numeric-uid-gid --literal --hide-control-chars
     --show-control-chars --quote-name --quoting-style=T --reverse --recursive --size --sort=T --time=T
     --time-style=T --tabsize=T --width=T --context --zero`,
    "paths",
    { implicit: true },
  ),
);
const headTail = `-c=T -n=T -q -v -z --bytes=T --lines=T --quiet --silent --verbose --zero-terminated -#`;
listed("head", spec(headTail, "paths"));
listed(
  "tail",
  spec(
    `${headTail} -f -F -s=T --follow --follow? --retry --pid=T --sleep-interval=T --max-unchanged-stats=T`,
    "paths",
  ),
);
listed("wc", spec("-c -m -l -L -w --bytes --chars --lines --max-line-length --words --total=T", "paths"));
listed(
  "stat",
  spec("-L -f -t -c=T --format=T --printf=T --dereference --file-system --terse --cached=T", "paths"),
);
listed(
  "file",
  spec(
    `-b -i -L -h -z -Z -k -r -N -E -0 --brief --mime --mime-type --mime-encoding --dereference
     --no-dereference --uncompress --uncompress-noreport --keep-going --raw --extension --apple
     --preserve-date --no-pad --print0 --separator=T -F=T`,
    "paths",
  ),
);
listed(
  "du",
  spec(
    `-a -b -c -d=T -h -k -m -s -x -L -P -H -l -0 -S -t=T -B=T --all --apparent-size --block-size=T
     --total --max-depth=T --human-readable --si --summarize --one-file-system --dereference
     --no-dereference --count-links --null --separate-dirs --threshold=T --time --time? --exclude=T
     --inodes`,
    "paths",
    { implicit: true },
  ),
);
listed(
  "df",
  spec(
    `-a -h -H -i -k -l -P -T -t=T -x=T -B=T --all --human-readable --si --inodes --local --portability
     --print-type --type=T --exclude-type=T --output --output? --total --block-size=T --sync --no-sync`,
    "paths",
  ),
);
listed("pwd", spec("-L -P --logical --physical", "none"));
listed("basename", spec("-a -s=T -z --multiple --suffix=T --zero", "text", { anyText: true }));
listed("dirname", spec("-z --zero", "text", { anyText: true }));
const canonicalize = `-e -f -m -n -q -s -v -z --canonicalize --canonicalize-existing --canonicalize-missing
  --no-newline --quiet --silent --verbose --zero`;
listed("readlink", spec(canonicalize, "paths"));
listed(
  "realpath",
  spec(
    `${canonicalize} -L -P --logical --physical --strip --no-symlinks --relative-to=P --relative-base=P`,
    "paths",
  ),
);
listed(
  "less",
  spec(
    `-N -S -R -r -X -F -i -I -n -e -E -q -Q -s -M -m -K -c --quit-if-one-screen --no-init
     --RAW-CONTROL-CHARS --raw-control-chars --chop-long-lines --LINE-NUMBERS --line-numbers
     --ignore-case --IGNORE-CASE --quiet --silent --squeeze-blank-lines --long-prompt --quit-at-eof
     --QUIT-AT-EOF --clear-screen --no-keypad --mouse? -#`,
    "paths",
    { plus: true },
  ),
);
listed(
  "more",
  spec(
    "-d -l -f -p -c -s -u -n=T --silent --logical --no-pause --print-over --clean-print --squeeze --plain --lines=T -#",
    "paths",
    { plus: true },
  ),
);
listed(
  "tree",
  spec(
    `-a -d -l -f -x -L=T -P=T -I=T -i -q -N -Q -p -u -g -s -h -D -F -v -t -c -U -r -n -C -A -S -J -X
     --prune --noreport --si --du --dirsfirst --filesfirst --matchdirs --ignore-case --gitignore
     --charset=T --filelimit=T --sort=T --timefmt=T --info --metafirst`,
    "paths",
    { implicit: true },
  ),
);
listed("zcat bzcat xzcat zstdcat", spec("-f -q -v -k -c --force --quiet --verbose --keep --stdout", "paths"));

/**
 * find: start paths, then an expression of tests and actions that print; `-exec`, `-ok`, `-delete` and the
 * `-fprint` family are not listed (their rule classifies the command; a listed verdict would hide it).
 */
const FIND_EXPRESSION_WORDS = new Set(["!", "(", ")", ",", "\\(", "\\)", "\\!"]);
listed(
  "find gfind",
  spec(
    `-H -L -P -D=T -O1 -O2 -O3 -name=T -iname=T -path=T -ipath=T -wholename=T -iwholename=T -regex=T
     -iregex=T -regextype=T -type=T -xtype=T -maxdepth=T -mindepth=T -size=T -mtime=T -mmin=T -atime=T
     -amin=T -ctime=T -cmin=T -newer=P -anewer=P -cnewer=P -samefile=P -empty -executable -readable
     -writable -links=T -user=T -group=T -uid=T -gid=T -perm=T -nouser -nogroup -inum=T -true -false
     -print -print0 -printf=T -ls -prune -quit -depth -d -xdev -mount -follow -noleaf -daystart
     -ignore_readdir_race -noignore_readdir_race -not -a -and -o -or -fstype=T -lname=T -ilname=T
     -used=T -warn -nowarn`,
    (operands, call) => {
      for (const word of operands) {
        if (FIND_EXPRESSION_WORDS.has(word)) continue;
        const verdict = call.read(word);
        if (verdict !== null) return verdict;
      }
      return null;
    },
    { singleDash: true, implicit: true },
  ),
);

// --- text processing -------------------------------------------------------------------------------

/** The first operand is a pattern or program unless one of `given` supplied it; the rest are files. */
function patternThenPaths(given: readonly string[], implicitWhenRecursive: boolean): OperandCheck {
  return (operands, call) => {
    const files = call.has(...given) ? operands : operands.slice(1);
    for (const word of files) {
      if (word === "-") continue;
      const verdict = call.read(word);
      if (verdict !== null) return verdict;
    }
    return files.length === 0 && implicitWhenRecursive && call.recursive ? call.read(".") : null;
  };
}

listed(
  "grep egrep fgrep",
  spec(
    `-E -F -G -P -i -y -v -w -x -c -l -L -o -q -s -b -H -h -n -T -Z -z -a -I -r -R -U -e=T -f=P -m=T
     -A=T -B=T -C=T -d=T -D=T --color --color? --colour --colour? --regexp=T --file=P --ignore-case
     --no-ignore-case --invert-match --word-regexp --line-regexp --count --files-with-matches
     --files-without-match --only-matching --quiet --silent --no-messages --byte-offset --with-filename
     --no-filename --label=T --line-number --initial-tab --null --null-data --text --binary-files=T
     --devices=T --directories=T --exclude=T --exclude-dir=T --exclude-from=P --include=T --recursive
     --dereference-recursive --line-buffered --max-count=T --after-context=T --before-context=T
     --context=T --extended-regexp --fixed-strings --basic-regexp --perl-regexp -#`,
    patternThenPaths(["-e", "-f", "--regexp", "--file"], true),
    { recursive: "-r -R --recursive --dereference-recursive -d --directories" },
  ),
);
listed(
  "rg",
  spec(
    `-i -S -s -w -x -v -c -l -n -N -H -I -F -u -o -L -p -U -P -a -0 -q -e=T -g=T -t=T -T=T -A=T -B=T
     -C=T -m=T -d=T -M=T -r=T -f=P -E=T -j=T --no-heading --heading --glob=T --iglob=T --type=T
     --type-not=T --hidden --no-ignore --no-ignore-vcs --no-ignore-dot --no-ignore-parent --files
     --files-with-matches --files-without-match --count --count-matches --json --vimgrep
     --only-matching --context=T --after-context=T --before-context=T --max-count=T --max-depth=T
     --max-columns=T --max-columns-preview --color=T --colors=T --pretty --sort=T --sortr=T --follow
     --null --trim --stats --multiline --multiline-dotall --pcre2 --smart-case --case-sensitive
     --ignore-case --fixed-strings --word-regexp --line-regexp --invert-match --line-number
     --no-line-number --with-filename --no-filename --column --no-messages --type-list --quiet
     --replace=T --file=P --regexp=T --encoding=T --threads=T --text --ignore-file=P --max-filesize=T
     --no-config --one-file-system --passthru --byte-offset --unrestricted`,
    (operands, call) =>
      patternThenPaths(["-e", "-f", "--regexp", "--file", "--files", "--type-list"], true)(operands, call),
    { recursive: true },
  ),
);
listed(
  "cut",
  spec(
    `-b=T -c=T -d=T -f=T -n -s -z --bytes=T --characters=T --delimiter=T --fields=T --complement
     --only-delimited --output-delimiter=T --zero-terminated`,
    "paths",
  ),
);
listed("tr", spec("-c -C -d -s -t --complement --delete --squeeze-repeats --truncate-set1", "text"));
listed(
  "diff",
  spec(
    `-q -s -c -C=T -u -U=T -e -n -y -W=T -l -t -T -r -N -a -b -w -B -E -Z -i -I=T -x=T -X=P -S=T -p
     -F=T -d -H --brief --report-identical-files --context --context? --unified --unified? --ed --rcs
     --side-by-side --width=T --left-column --suppress-common-lines --expand-tabs --initial-tab
     --recursive --new-file --unidirectional-new-file --text --ignore-space-change --ignore-all-space
     --ignore-blank-lines --ignore-case --ignore-matching-lines=T --exclude=T --exclude-from=P
     --show-c-function --show-function-line=T --minimal --speed-large-files --strip-trailing-cr --color
     --color? --label=T --normal --no-dereference --tabsize=T --suppress-blank-empty --from-file=P
     --to-file=P --ignore-tab-expansion --ignore-trailing-space --ignore-file-name-case
     --no-ignore-file-name-case --line-format=T --old-line-format=T --new-line-format=T
     --unchanged-line-format=T --horizon-lines=T`,
    "paths",
    { recursive: "-r --recursive" },
  ),
);
listed(
  "cmp",
  spec("-b -l -s -i=T -n=T --print-bytes --verbose --quiet --silent --ignore-initial=T --bytes=T", "paths"),
);
listed(
  "comm",
  spec("-1 -2 -3 -z --check-order --nocheck-order --output-delimiter=T --total --zero-terminated", "paths"),
);
listed(
  "join",
  spec(
    "-a=T -e=T -i -j=T -o=T -t=T -v=T -1=T -2=T -z --check-order --nocheck-order --header --ignore-case --zero-terminated",
    "paths",
  ),
);
listed("paste", spec("-d=T -s -z --delimiters=T --serial --zero-terminated", "paths"));
listed(
  "column",
  spec(
    `-t -s=T -o=T -c=T -x -n -e -J -N=T -R=T -H=T -W=T -r=T -l=T -d -L --table --separator=T
     --output-separator=T --output-width=T --columns=T --fillrows --json --table-columns=T
     --table-right=T --table-hide=T --table-wrap=T --table-noheadings --table-name=T --keep-empty-lines`,
    "paths",
  ),
);
listed("fold", spec("-b -s -w=T --bytes --spaces --width=T -#", "paths"));
listed(
  "fmt",
  spec(
    "-c -p=T -s -t -u -w=T -g=T --crown-margin --prefix=T --split-only --tagged-paragraph --uniform-spacing --width=T --goal=T -#",
    "paths",
  ),
);
listed("rev", spec("-0 --zero", "paths"));
listed("tac", spec("-b -r -s=T --before --regex --separator=T", "paths"));
listed(
  "nl",
  spec(
    `-b=T -d=T -f=T -h=T -i=T -l=T -n=T -p -s=T -v=T -w=T --body-numbering=T --section-delimiter=T
     --footer-numbering=T --header-numbering=T --line-increment=T --join-blank-lines=T
     --number-format=T --no-renumber --number-separator=T --starting-line-number=T --number-width=T`,
    "paths",
  ),
);
listed("expand unexpand", spec("-i -t=T -a --initial --tabs=T --all --first-only", "paths"));
listed("base64 base32", spec("-d -i -w=T --decode --ignore-garbage --wrap=T", "paths"));
listed(
  "od",
  spec(
    `-A=T -j=T -N=T -t=T -v -w? -a -b -c -d -f -i -l -o -s -x -S=T --address-radix=T --skip-bytes=T
     --read-bytes=T --format=T --output-duplicates --width --width? --endian=T --strings --strings?
     --traditional`,
    "paths",
  ),
);
listed("hexdump hd", spec("-b -c -C -d -o -x -v -L -e=T -n=T -s=T", "paths"));
listed(
  "xxd",
  spec(
    `-a -autoskip -b -bits -C -capitalize -E -EBCDIC -e -i -include -p -ps -postscript -plain -u
     -uppercase -d -c=T -cols=T -g=T -groupsize=T -l=T -len=T -n=T -name=T -o=T -offset=T -s=T -seek=T
     -R=T`,
    (operands, call) => {
      // A second operand is the output file (its rule says so); the first is read.
      const [input] = operands;
      return input === undefined || input === "-" ? null : call.read(input);
    },
    { singleDash: true },
  ),
);
listed(
  "strings",
  spec(
    `-a -d -f -w -n=T -t=T -e=T -s=T --all --data --print-file-name --bytes=T --radix=T --encoding=T
     --include-all-whitespace --output-separator=T -#`,
    "paths",
  ),
);
listed(
  "md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum sum shasum sha3sum",
  spec(
    `-b -c -t -z -w -r -s -l=T -a=T --binary --check --text --tag --zero --ignore-missing --quiet
     --status --strict --warn --length=T --algorithm=T --untagged --base64 --raw --debug --sysv`,
    "paths",
  ),
);
listed(
  "sort",
  spec(
    `-b -d -f -g -i -M -h -n -R -r -V -c -C -m -s -u -z -k=T -t=T -S=T --ignore-leading-blanks
     --dictionary-order --ignore-case --general-numeric-sort --ignore-nonprinting --month-sort
     --human-numeric-sort --numeric-sort --random-sort --reverse --version-sort --sort=T --check
     --check? --merge --stable --unique --zero-terminated --key=T --field-separator=T --buffer-size=T
     --parallel=T --debug --random-source=P`,
    "paths",
  ),
);
listed(
  "uniq",
  spec(
    `-c -d -D -u -i -z -f=T -s=T -w=T --count --repeated --all-repeated --all-repeated? --unique
     --ignore-case --zero-terminated --skip-fields=T --skip-chars=T --check-chars=T --group --group?`,
    // A second operand is the output file (its rule says so); the first is read.
    (operands, call) => (operands[0] === undefined || operands[0] === "-" ? null : call.read(operands[0])),
  ),
);
listed("echo", spec("-n -e -E", "text", { anyText: true }));
listed("printf", spec("", "text", { stop: true }));
listed("seq", spec("-f=T -s=T -w --format=T --separator=T --equal-width -#", "text"));
listed("expr yes true false : [ [[ test factor sleep", spec("", "text", { anyText: true }));
listed("tsort", spec("", "paths"));
listed(
  "jq",
  spec(
    `-r -j -a -c -n -s -e -S -C -M -R --raw-output --raw-output0 --join-output --ascii-output
     --compact-output --null-input --slurp --exit-status --sort-keys --color-output --monochrome-output
     --raw-input --tab --seq --stream --stream-errors --unbuffered --indent=T --arg=TT --argjson=TT
     --slurpfile=TP --rawfile=TP --args --jsonargs`,
    (operands, call) => {
      // The filter, then files, or (after --args / --jsonargs) positional values.
      if (call.has("--args", "--jsonargs")) return null;
      for (const word of operands.slice(1)) {
        const verdict = word === "-" ? null : call.read(word);
        if (verdict !== null) return verdict;
      }
      return null;
    },
  ),
);

/** awk's operands after the program: files, and `name=value` assignments (text). */
const awkOperands: OperandCheck = (operands, call) => {
  const rest = call.has("-e", "--source") ? operands : operands.slice(1);
  for (const word of rest) {
    if (word === "-" || assignedName(word) !== null) continue;
    const verdict = call.read(word);
    if (verdict !== null) return verdict;
  }
  return null;
};
listed(
  "awk gawk mawk nawk",
  spec(
    `-F=T -v=T -b -c -P -O -S -r -e=T --field-separator=T --assign=T --source=T --characters-as-bytes
     --traditional --posix --optimize --sandbox --re-interval`,
    awkOperands,
  ),
);
listed(
  "sed gsed",
  spec(
    `-n -E -r -s -u -z -l=T -e=T --quiet --silent --regexp-extended --separate --unbuffered --null-data
     --posix --sandbox --debug --line-length=T --expression=T`,
    patternThenPaths(["-e", "--expression"], false),
  ),
);
listed(
  "yq",
  spec(
    "-r -o=T -p=T -e -M -C -P -I=T -n -N -j --output-format=T --input-format=T --exit-status --no-colors --colors --prettyPrint --indent=T --null-input --no-doc --unwrapScalar",
    patternThenPaths([], false),
  ),
);

// --- ordinary writes in the workspace ----------------------------------------------------------------

listed("touch", spec("-a -c -m -d=T -t=T -r=P --date=T --reference=P --time=T --no-create", "written"));
listed("mkdir", spec("-p -v -m=T --parents --verbose --mode=T", "written"));
listed("rmdir", spec("-p -v --parents --verbose --ignore-fail-on-non-empty", "written"));
listed("tee", spec("-a -i -p --append --ignore-interrupts", "written"));

/** cp SOURCE… TARGET (or `-t TARGET SOURCE…`): sources read, the target written. */
function copyOperands(sourcesWritten: boolean): OperandCheck {
  return (operands, call) => {
    const targeted = call.has("-t", "--target-directory");
    const sources = targeted ? operands : operands.slice(0, -1);
    for (const word of sources) {
      const verdict = sourcesWritten ? call.write(word) : call.read(word);
      if (verdict !== null) return verdict;
    }
    const target = targeted ? undefined : operands[operands.length - 1];
    return target === undefined ? null : call.write(target);
  };
}
const copyOptions = `-f -i -n -u -v -T -b -t=W -S=T --force --interactive --no-clobber --update --update?
  --verbose --no-target-directory --target-directory=W --backup --backup? --suffix=T`;
listed(
  "cp",
  spec(
    `${copyOptions} -r -R -a -p -L -P -d -H --recursive --archive --preserve --preserve? --no-preserve=T
     --parents --dereference --no-dereference --strip-trailing-slashes --sparse=T`,
    copyOperands(false),
    { recursive: "-r -R -a --recursive --archive" },
  ),
);
listed("mv", spec(`${copyOptions} --strip-trailing-slashes`, copyOperands(true)));

// --- system info -----------------------------------------------------------------------------------

listed(
  "uname",
  spec(
    `-a -s -n -r -v -m -p -i -o --all --kernel-name --nodename --kernel-release --kernel-version
     --machine --processor --hardware-platform --operating-system`,
    "none",
  ),
);
listed("whoami logname nproc arch users", spec("--all --ignore=T", "none"));
listed("id", spec("-u -g -G -n -r -z -a -Z --user --group --groups --name --real --zero --context", "text"));
listed("groups", spec("", "text"));
listed("uptime", spec("-p -s --pretty --since", "none"));
listed(
  "hostname",
  spec(
    "-f -s -i -I -d -A -a -y --fqdn --long --short --ip-address --all-ip-addresses --domain --all-fqdns --alias --nis",
    "none",
  ),
);
listed(
  "free",
  spec(
    `-b -k -m -g -h -w -t -l -v -s=T -c=T --bytes --kilo --mega --giga --tera --kibi --mebi --gibi --tebi
     --human --si --total --wide --lohi --seconds=T --count=T --committed`,
    "none",
  ),
);
listed(
  "date gdate",
  spec(
    `-u -R -I? -d=T -r=P --utc --universal --rfc-email --rfc-3339=T --iso-8601 --iso-8601? --date=T
     --reference=P --debug`,
    (operands, call) => {
      // `+FORMAT` only: any other operand sets the clock.
      const setting = operands.find((word) => !word.startsWith("+"));
      return setting === undefined ? null : unknownOperand(call.label, setting);
    },
  ),
);
listed(
  "ps",
  spec(
    `-e -A -a -d -N -T -r -x -f -F -l -j -y -w -H -L -m -M -Z -C=T -G=T -g=T -o=T -O=T -p=T -q=T -s=T
     -t=T -U=T -u=T -k=T --forest --headers --no-headers --cumulative --format=T --pid=T --ppid=T
     --sort=T --user=T --cols=T --columns=T --width=T --lines=T --rows=T --sid=T --tty=T --group=T
     --Group=T --User=T --quick-pid=T --deselect`,
    // BSD option words (`aux`: the `e` ones are its rule's) and process ids.
    "text",
  ),
);
listed(
  "pgrep",
  spec(
    `-l -a -f -x -n -o -c -i -v -w -A -d=T -u=T -U=T -g=T -G=T -P=T -s=T -t=T -r=T --list-name
     --list-full --full --exact --newest --oldest --count --delimiter=T --euid=T --uid=T --parent=T
     --ignore-case --inverse --lightweight --ns=T --nslist=T --runstates=T --ignore-ancestors`,
    "text",
  ),
);
listed("top", spec("-b -c -H -i -S -1 -n=T -d=T -p=T -u=T -U=T -o=T -E=T -e=T -w?", "none"));
listed("printenv", spec("-0 --null", "text"));
listed("which", spec("-a -s --all --skip-alias --skip-functions --skip-dot --skip-tilde", "text"));
listed("whereis", spec("-b -m -s -u -l", "text"));
listed("type", spec("-a -f -p -P -t", "text"));
listed(
  "locale",
  spec("-a -m -c -k -v --all-locales --charmaps --category-name --keyword-name --verbose", "text"),
);
listed("tty", spec("-s --silent --quiet", "none"));
listed("getconf", spec("-a", "text"));
listed("cal ncal", spec("-1 -3 -y -j -w -h -m=T -A=T -B=T -#", "text"));
listed(
  "lscpu",
  spec(
    "-a -b -c -x -y -B -J -e? -p? --all --online --offline --hex --physical --bytes --json --extended --extended? --parse --parse?",
    "none",
  ),
);
listed(
  "lsblk",
  spec(
    `-a -b -d -f -l -J -m -n -p -r -t -S -o=T -e=T -I=T --output=T --json --list --all --bytes --nodeps
     --fs --perms --noheadings --paths --raw --tree --scsi --exclude=T --include=T`,
    "paths",
  ),
);
listed(
  "ss",
  spec(
    `-t -u -l -n -p -a -x -w -4 -6 -s -e -o -m -i -r -H -O -Z -A=T -f=T --tcp --udp --listening --numeric
     --processes --all --summary --extended --options --memory --info --no-header --oneline --family=T
     --query=T --resolve`,
    "text",
  ),
);
listed(
  "netstat",
  spec(
    `-t -u -l -n -p -a -r -i -s -e -c -W -4 -6 -x --tcp --udp --listening --numeric --program --all
     --route --interfaces --statistics --extend --wide`,
    "none",
  ),
);
listed(
  "dmesg",
  spec(
    `-T -H -k -u -x -w -t -r -l=T -f=T --ctime --human --level=T --facility=T --kernel --userspace --decode
     --follow --color --color? --time-format=T --since=T --until=T --notime --raw --nopager`,
    "none",
  ),
);
listed(
  "ip",
  spec(
    "-4 -6 -br -brief -j -json -c -color -s -stats -d -details -p -pretty -o -oneline -h -human -N -t",
    (operands, call) => {
      // Objects and `show`/`list` words; `ip netns exec NS CMD` runs a command.
      const exec = operands.find((word) => word === "exec" || word === "e");
      return exec === undefined ? null : unknownOperand(call.label, exec);
    },
    { singleDash: true },
  ),
);
listed("ifconfig", spec("-a -s -v", "text"));
listed(
  "systemctl",
  spec(
    `-a -l -t=T -n=T -o=T -q -r -p=T -P=T --no-pager --all --full --type=T --state=T --user --system
     --lines=T --output=T --quiet --plain --no-legend --recursive --failed --property=T --value
     --reverse --before --after --with-dependencies --no-ask-password`,
    "text",
  ),
);
listed("service", spec("--status-all", "text"));
listed(
  "journalctl",
  spec(
    `-u=T -n=T -f -b? -p=T -S=T -U=T -o=T -r -x -e -k -q -a -m -N -F=T -g=T -t=T --unit=T --user-unit=T
     --lines=T --lines? --follow --boot --boot? --priority=T --since=T --until=T --no-pager --output=T
     --reverse --catalog --pager-end --dmesg --user --system --quiet --all --no-hostname --no-full --grep=T
     --case-sensitive? --identifier=T --list-boots --disk-usage --utc --merge --field=T --fields`,
    "text",
  ),
);
listed(
  "iptables ip6tables",
  spec(
    "-L? -S? -n -v -x -4 -6 -t=T --line-numbers --table=T --list? --list-rules? --numeric --verbose --exact",
    "text",
  ),
);

// --- network reads ---------------------------------------------------------------------------------

listed(
  "curl",
  spec(
    `-s -S -L -f -i -I -k -v -q -G -N -Z -4 -6 -0 -H=T -A=T -e=T -m=T -d=T -o=O -w=T -X=T -u=T -b=T
     -r=T -y=T -Y=T --silent --show-error --location --location-trusted --fail --fail-with-body
     --include --head --insecure --verbose --compressed --get --no-buffer --parallel --header=T
     --user-agent=T --referer=T --max-time=T --connect-timeout=T --retry=T --retry-delay=T
     --retry-max-time=T --retry-all-errors --data=T --data-urlencode=T --data-raw=T --data-ascii=T
     --output=O --write-out=T --request=T --user=T --cookie=T --range=T --http1.0 --http1.1 --http2
     --http2-prior-knowledge --http3 --progress-bar --no-progress-meter --url=U --max-redirs=T
     --max-filesize=T --limit-rate=T --tlsv1.2 --tlsv1.3 --cacert=P --capath=P --oauth2-bearer=T
     --digest --basic --anyauth --ipv4 --ipv6 --raw --tcp-nodelay --no-keepalive --keepalive-time=T
     --expect100-timeout=T --fail-early --ignore-content-length --path-as-is --proto=T --proto-redir=T
     --proto-default=T --url-query=T --speed-limit=T --speed-time=T --styled-output --no-styled-output
     --globoff -g --json=T`,
    (operands, call) => {
      // `-w '%output{FILE}'` writes a file (curl 8.3+).
      for (const option of call.options) {
        if ((option.name === "-w" || option.name === "--write-out") && option.value?.includes("%output")) {
          return dangerous("output-file", `output file: curl ${option.name} ${shown(option.value)}`);
        }
      }
      return checkUrls(operands, call);
    },
  ),
);

function checkUrls(operands: readonly string[], call: Call): Classification | null {
  return checkArguments(call.label, URLS, ["--", ...operands], call.paths);
}
const URLS = spec("", "urls");

/** A name a download may be saved under: a plain file name of the workspace. */
function downloadedName(url: string): string {
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").replace(/[?#].*$/, "");
  const slash = path.indexOf("/");
  const name = slash < 0 ? "" : path.slice(path.lastIndexOf("/") + 1);
  return name === "" ? "index.html" : decodeURIComponent(name);
}

listed(
  "wget wget2",
  spec(
    `-q -v -S -4 -6 -O=O -T=T -t=T -U=T --quiet --verbose --no-verbose --server-response --spider
     --no-clobber --timeout=T --tries=T --user-agent=T --header=T --no-check-certificate --inet4-only
     --inet6-only --max-redirect=T --content-on-error --compression=T --no-directories --no-parent
     --no-host-directories --no-cache --no-cookies --output-document=O --show-progress --progress=T
     --method=T --no-config`,
    (operands, call) => {
      const urls = checkUrls(operands, call);
      if (urls !== null) return urls;
      // Without `-O -` (or `--spider`) each URL is saved in the working directory, under its own name.
      if (call.has("-O", "--output-document", "--spider")) return null;
      for (const url of operands) {
        let name: string;
        try {
          name = downloadedName(url);
        } catch {
          return unknownOperand(call.label, url);
        }
        const verdict = call.write(name.includes("/") ? `./${name.replaceAll("/", "_")}` : name);
        if (verdict !== null) return verdict;
      }
      return null;
    },
    { words: "-nv -nc -nd -np -nH" },
  ),
);
listed(
  "http https xh xhs",
  spec(
    `-h -b -v -j -f -F -I -q -p=T -s=T -a=T -A=T --headers --body --verbose --json --form --follow
     --check-status --quiet --ignore-stdin --print=T --pretty=T --style=T --timeout=T --verify=T
     --auth=T --auth-type=T --max-redirects=T --all --compress --offline`,
    (operands, call) => {
      // `[METHOD] URL [ITEM…]` (its rule judges the items).
      const url = /^[A-Za-z]+$/.test(operands[0] ?? "") && operands.length > 1 ? operands[1] : operands[0];
      return url === undefined ? null : checkUrls([url], call);
    },
  ),
);
listed("ping ping6", spec("-c=T -i=T -W=T -w=T -s=T -t=T -q -n -4 -6 -D -O -a -v", "text"));
listed(
  "traceroute traceroute6 tracepath mtr",
  spec("-n -m=T -w=T -q=T -4 -6 -c=T -r --report -b -l=T", "text"),
);
listed("whois", spec("-h=T -p=T -H", "text"));
listed("dig", spec("-4 -6 -x=T -t=T -c=T -p=T -q=T -y=T -b=T -k=P -m -u -v -r -i", "text"));
listed("host", spec("-t=T -a -v -4 -6 -W=T -R=T -c=T -l -r -s -T -d -C -N=T", "text"));
listed(
  "nslookup",
  spec("-type=T -query=T -debug -nodebug -port=T -timeout=T -retry=T -norecurse -vc", "text", {
    singleDash: true,
  }),
);

// --- version control -------------------------------------------------------------------------------

const DIFF_OPTIONS = `-p -u -s -z -R -w -b -a -W -D -M? -C? -B? -U=T -S=T -G=T -O=P --patch --no-patch --raw
  --unified=T --stat --stat? --numstat --shortstat --dirstat --dirstat? --summary --name-only
  --name-status --submodule --submodule? --color --color? --no-color --color-moved --color-moved?
  --word-diff --word-diff? --word-diff-regex=T --color-words --color-words? --no-renames --find-renames
  --find-renames? --find-copies --find-copies? --break-rewrites --break-rewrites? --irreversible-delete
  --diff-filter=T --pickaxe-all --pickaxe-regex --relative --relative? --no-relative --text
  --ignore-cr-at-eol --ignore-space-at-eol --ignore-space-change --ignore-all-space
  --ignore-blank-lines --ignore-matching-lines=T --inter-hunk-context=T --function-context
  --exit-code --quiet --check --minimal --patience --histogram --anchored=T --diff-algorithm=T
  --no-prefix --default-prefix --src-prefix=T --dst-prefix=T --line-prefix=T --ita-invisible-in-index
  --full-index --binary --abbrev --abbrev? --no-ext-diff --no-textconv --indent-heuristic
  --no-indent-heuristic --output=O --output-indicator-new=T --output-indicator-old=T
  --output-indicator-context=T --cached --staged --merge-base --no-index --compact-summary
  --ignore-submodules --ignore-submodules?`;
const LOG_OPTIONS = `${DIFF_OPTIONS} -n=T -i -E -F -P -g -L=T -m -c -t --max-count=T --skip=T --since=T
  --after=T --until=T --before=T --author=T --committer=T --grep=T --all-match --invert-grep
  --regexp-ignore-case --extended-regexp --fixed-strings --perl-regexp --merges --no-merges --min-parents=T
  --max-parents=T --first-parent --not --all --branches --branches? --tags --tags? --remotes
  --remotes? --glob=T --exclude=T --reflog --alternate-refs --single-worktree --ignore-missing --bisect
  --stdin --cherry-mark --cherry-pick --left-only --right-only --cherry --walk-reflogs --merge
  --boundary --simplify-by-decoration --show-pulls --full-history --dense --sparse --simplify-merges
  --ancestry-path --ancestry-path? --date-order --author-date-order --topo-order --reverse --no-walk
  --no-walk? --do-walk --pretty --pretty? --format=T --abbrev-commit --no-abbrev-commit --oneline
  --encoding=T --expand-tabs --expand-tabs? --no-expand-tabs --notes --notes? --no-notes
  --relative-date --date=T --parents --children --left-right --graph --show-linear-break
  --show-linear-break? --decorate --decorate? --no-decorate --decorate-refs=T
  --decorate-refs-exclude=T --source --clear-decorations --use-mailmap --no-use-mailmap --mailmap
  --no-mailmap --log-size --follow --no-follow --cc --dd --remerge-diff --no-diff-merges
  --diff-merges=T --combined-all-paths --count --left-right --timestamp -#`;

/** Revisions and paths: judged as paths (a revision name resolves inside the workspace, harmlessly). */
const revisionsAndPaths = "paths";
const gitSub = (options: string, operands: Parameters<typeof spec>[1] = "text") => spec(options, operands);
const GIT_SUBCOMMANDS: Record<string, ProgramSpec> = {
  status: spec(
    `-s -b -v -z -u? --short --branch --porcelain --porcelain? --long --verbose --untracked-files
     --untracked-files? --ignored --ignored? --ignore-submodules --ignore-submodules? --column
     --column? --no-column --ahead-behind --no-ahead-behind --renames --no-renames --find-renames
     --find-renames? --show-stash --no-optional-locks`,
    "paths",
    { implicit: true },
  ),
  log: spec(LOG_OPTIONS, revisionsAndPaths, { implicit: true }),
  whatchanged: spec(LOG_OPTIONS, revisionsAndPaths, { implicit: true }),
  show: spec(LOG_OPTIONS, revisionsAndPaths, { implicit: true }),
  diff: spec(LOG_OPTIONS, revisionsAndPaths, { implicit: true }),
  "diff-tree": spec(`${LOG_OPTIONS} -r --root`, revisionsAndPaths, { implicit: true }),
  "diff-files": spec(DIFF_OPTIONS, revisionsAndPaths, { implicit: true }),
  "diff-index": spec(DIFF_OPTIONS, revisionsAndPaths, { implicit: true }),
  shortlog: spec(`${LOG_OPTIONS} -s -e -w? --summary --email --group=T --committer`, revisionsAndPaths, {
    implicit: true,
  }),
  "rev-list": spec(`${LOG_OPTIONS} --objects --objects-edge --no-object-names --quiet`, revisionsAndPaths, {
    implicit: true,
  }),
  blame: spec(
    `-L=T -l -t -s -e -w -c -p -n -f -b -M? -C? --porcelain --line-porcelain --incremental --show-name
     --show-number --show-email --root --date=T --since=T --first-parent --color-lines --color-by-age
     --abbrev=T --ignore-rev=T --ignore-revs-file=P --minimal --progress --no-progress --score-debug
     --show-stats --reverse=T --encoding=T --contents=P`,
    revisionsAndPaths,
  ),
  annotate: spec("-L=T -l -t -s -e -w -c -p -n -f -b --porcelain --date=T --abbrev=T", revisionsAndPaths),
  branch: gitSub(
    `-a -r -l -v -i --all --remotes --list --verbose --show-current --contains --no-contains --merged
     --no-merged --sort=T --format=T --color --color? --no-color --column --column? --no-column
     --points-at=T --abbrev=T --no-abbrev --ignore-case --omit-empty`,
  ),
  tag: gitSub(
    `-l -n -i -v --list --sort=T --contains --no-contains --merged --no-merged --points-at=T --format=T
     --column --column? --no-column --color --color? --ignore-case --omit-empty -#`,
  ),
  remote: gitSub("-v --verbose"),
  fetch: gitSub(
    `-a -p -P -t -n -q -v -j=T --all --prune --prune-tags --tags --no-tags --quiet --verbose --depth=T
     --deepen=T --shallow-since=T --shallow-exclude=T --unshallow --dry-run --multiple --progress
     --no-progress --porcelain --jobs=T --no-recurse-submodules --set-upstream --no-write-fetch-head
     --write-fetch-head --filter=T --refetch --negotiation-tip=T --show-forced-updates
     --no-show-forced-updates --atomic --ipv4 --ipv6 -4 -6`,
    (operands, call) => remoteOperand(operands, call),
  ),
  "ls-remote": gitSub(
    "-h -t -q -b --heads --tags --branches --refs --quiet --exit-code --get-url --sort=T --symref",
    (operands, call) => remoteOperand(operands, call),
  ),
  "rev-parse": gitSub(
    `-q --abbrev-ref --abbrev-ref? --short --short? --verify --quiet --show-toplevel --show-prefix
     --show-cdup --git-dir --absolute-git-dir --git-common-dir --is-inside-work-tree --is-inside-git-dir
     --is-bare-repository --is-shallow-repository --symbolic --symbolic-full-name --all --branches
     --branches? --tags --tags? --remotes --remotes? --sq --sq-quote --default=T --show-object-format
     --show-object-format? --path-format=T --show-superproject-working-tree --local-env-vars
     --revs-only --no-revs --flags --no-flags --since=T --until=T --after=T --before=T`,
  ),
  "ls-files": spec(
    `-c -d -m -o -i -s -u -k -z -t -v -f --cached --deleted --modified --others --ignored --stage
     --unmerged --killed --full-name --exclude-standard --error-unmatch --directory --no-empty-directory
     --eol --deduplicate --abbrev --abbrev? --format=T -x=T --exclude=T -X=P --exclude-from=P
     --exclude-per-directory=T --sparse`,
    "paths",
    { implicit: true },
  ),
  "ls-tree": gitSub(
    "-r -t -d -l -z --long --name-only --name-status --object-only --full-name --full-tree --abbrev --abbrev? --format=T",
    revisionsAndPaths,
  ),
  grep: spec(
    `-i -I -v -w -l -L -c -n -h -H -o -q -z -E -F -G -P -p -W -a -e=T -f=P -A=T -B=T -C=T -m=T
     --cached --untracked --no-index --no-exclude-standard --exclude-standard --and --or --not
     --max-depth=T --heading --break --all-match --show-function --function-context --name-only
     --files-with-matches --files-without-match --count --line-number --column --color --color?
     --no-color --threads=T --null --only-matching --quiet --ignore-case --invert-match --word-regexp
     --text --extended-regexp --fixed-strings --basic-regexp --perl-regexp --full-name --max-count=T
     --no-textconv -#`,
    patternThenPaths(["-e", "-f"], false),
  ),
  "show-ref": gitSub(
    "-s -d -q --head --heads --branches --tags --hash --hash? --dereference --verify --exists --quiet --abbrev --abbrev?",
  ),
  "for-each-ref": gitSub(
    `-s -p --format=T --sort=T --count=T --points-at=T --merged --merged? --no-merged --no-merged?
     --contains --contains? --no-contains --no-contains? --ignore-case --omit-empty --shell --perl
     --python --tcl --exclude=T --include-root-refs --start-after=T`,
  ),
  "merge-base": gitSub("-a --all --octopus --independent --is-ancestor --fork-point"),
  describe: gitSub(
    `--tags --all --always --long --abbrev=T --dirty --dirty? --broken --broken? --exact-match --match=T
     --exclude=T --contains --first-parent --candidates=T --debug`,
  ),
  "cat-file": gitSub(
    "-t -s -e -p --batch-check --batch-check? --allow-unknown-type --use-mailmap --no-use-mailmap",
  ),
  "count-objects": gitSub("-v -H --verbose --human-readable", "none"),
  "name-rev": gitSub(
    "--name-only --tags --refs=T --exclude=T --all --no-undefined --always --annotate-stdin",
  ),
  "check-ignore": gitSub("-q -v -n -z --quiet --verbose --non-matching --no-index", "paths"),
  "check-attr": gitSub("-a -z --all --cached --source=T", "text"),
  "check-ref-format": gitSub("--branch --normalize --allow-onelevel --no-allow-onelevel --refspec-pattern"),
  "show-branch": gitSub(
    "-a -r --all --remotes --list --topo-order --date-order --current --sha1-name --more=T --independent --merge-base --no-name --color --no-color",
  ),
  "symbolic-ref": gitSub("-q --short --no-recurse --quiet"),
  cherry: gitSub("-v --abbrev --abbrev?"),
  "range-diff": spec(`${LOG_OPTIONS} --creation-factor=T --no-dual-color --left-only --right-only`, "text"),
  version: gitSub("--build-options", "none"),
  "hash-object": gitSub("-t=T --path=T --no-filters --literally", "paths"),
  var: gitSub("-l", "text"),
  stash: gitSub("", (operands, call) => {
    const action = operands[0];
    if (action !== "list" && action !== "show")
      return action === undefined ? null : unknownOperand(call.label, action);
    return checkArguments(`${call.label} ${action}`, STASH_READ, operands.slice(1), call.paths);
  }),
  worktree: gitSub("", (operands, call) =>
    operands[0] === "list"
      ? checkArguments(`${call.label} list`, WORKTREE_LIST, operands.slice(1), call.paths)
      : unknownOperand(call.label, operands[0] ?? ""),
  ),
  reflog: spec(LOG_OPTIONS, (operands, call) =>
    operands.length === 0 || operands[0] === "show" || operands[0] === "exists"
      ? null
      : unknownOperand(call.label, operands[0]),
  ),
  config: gitSub(
    `-l -z -f=P --get --get-all --get-regexp --get-urlmatch --list --show-origin --show-scope --name-only
     --null --type=T --bool --int --bool-or-int --path --expiry-date --default=T --local --global
     --system --worktree --includes --no-includes --file=P --blob=T --all --regexp --value=T
     --fixed-value --url=T`,
  ),
  notes: gitSub("", (operands, call) =>
    operands.length === 0 || operands[0] === "list" || operands[0] === "show"
      ? null
      : unknownOperand(call.label, operands[0]),
  ),
};
const STASH_READ = spec(LOG_OPTIONS, "text");
const WORKTREE_LIST = spec("-v -z --porcelain --verbose --expire=T", "none");

const REMOTE_NAME = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;
/** The remote of `git fetch` / `ls-remote`: a configured remote's name, or a public https URL. */
function remoteOperand(operands: readonly string[], call: Call): Classification | null {
  const remote = operands[0];
  if (remote === undefined || (REMOTE_NAME.test(remote) && !remote.includes(".."))) return null;
  if (!/^https?:\/\//i.test(remote)) return unknownOperand(call.label, remote);
  return checkUrls([remote], call);
}

const gitGlobals = spec(
  `-C=P -P --no-pager --no-replace-objects --literal-pathspecs --glob-pathspecs --noglob-pathspecs
   --icase-pathspecs --no-optional-locks --bare --git-dir=P --work-tree=P --namespace=T --no-advice
   --no-lazy-fetch`,
  (operands, call) => {
    // `git -C dir …`: the subcommand's paths are dir's.
    let paths = call.paths;
    for (const option of call.options) {
      if (option.name === "-C" && option.value !== null) paths = movedTo(paths, option.value);
    }
    return checkSubcommand(GIT_SUBCOMMANDS, operands, call.label, paths);
  },
  { stop: true },
);
listed("git", gitGlobals);

listed(
  "gh",
  spec(
    `-R=T -L=T -s=T -q=T -t=T -a=T -l=T -A=T -B=T -H=T -S=T -c -i -p -b=T -e=T -u=T -n -X=T --repo=T --limit=T
     --state=T --json=T --jq=T --template=T --author=T --label=T --assignee=T --base=T --head=T
     --search=T --comments --paginate --include --cache=T --preview=T --method=T --app=T --sort=T
     --order=T --created=T --branch=T --workflow=T --user=T --event=T --status=T --commit=T --name-only
     --patch --color=T --no-browser --exit-status --verbose --log --log-failed --required --interval=T
     --owner=T --visibility=T --language=T --topic=T --archived --fork --source --no-archived
     --draft --merged --closed --mention=T --milestone=T --reviewer=T --review-requested=T --shell=T`,
    (operands, call) => {
      const [group, action] = operands;
      // `browse` opens a browser (unless -n); `download` writes files (the rest is its rule's).
      if (group === "browse" && !call.has("-n", "--no-browser")) return unknownOperand(call.label, group);
      if (action === "download") return unknownOperand(call.label, `${group} ${action}`);
      return null;
    },
  ),
);

// --- containers ------------------------------------------------------------------------------------

const PS = "-a -q -s -n=T -l -f=T --all --quiet --size --no-trunc --last=T --latest --filter=T --format=T";
const IMAGES = "-a -q -f=T --all --quiet --digests --no-trunc --filter=T --format=T --tree";
const LOGS = "-f -t -n=T --follow --timestamps --tail=T --since=T --until=T --details";
const INSPECT = "-f=T -s --format=T --size --type=T";
const LIST = "-q -f=T --quiet --filter=T --format=T --no-trunc";
const docker = (options: string, operands: Parameters<typeof spec>[1] = "text") => spec(options, operands);
const DOCKER_OBJECTS = (table: Record<string, ProgramSpec>) => docker("", subcommands(table));
const COMPOSE_SUBCOMMANDS: Record<string, ProgramSpec> = {
  ps: docker("-a -q --all --quiet --services --status=T --filter=T --format=T --no-trunc --orphans"),
  logs: docker(
    "-f -t -n=T --follow --timestamps --tail=T --since=T --until=T --no-color --no-log-prefix --index=T",
  ),
  ls: docker("-a -q --all --quiet --format=T --filter=T"),
  images: docker("-q --quiet --format=T"),
  config: docker(
    "-q --services --volumes --images --profiles --networks --environment --variables --quiet --format=T --no-interpolate --no-normalize --no-path-resolution --no-consistency --hash=T",
  ),
  top: docker(""),
  version: docker("-f=T --format=T --short", "none"),
  port: docker("--index=T --protocol=T"),
  events: docker("--json --since=T --until=T"),
};
const compose = spec(
  `-f=P -p=T --file=P --project-name=T --project-directory=P --env-file=P --profile=T --ansi=T
   --progress=T --parallel=T --compatibility --dry-run --all-resources`,
  subcommands(COMPOSE_SUBCOMMANDS),
  { stop: true },
);
const DOCKER_SUBCOMMANDS: Record<string, ProgramSpec> = {
  ps: docker(PS, "none"),
  images: docker(IMAGES),
  logs: docker(LOGS),
  inspect: docker(INSPECT),
  version: docker("-f=T --format=T", "none"),
  info: docker("-f=T --format=T", "none"),
  stats: docker("-a --all --no-stream --no-trunc --format=T"),
  top: docker(""),
  port: docker(""),
  history: docker("-H -q --human --no-trunc --quiet --format=T"),
  diff: docker(""),
  events: docker("-f=T --since=T --until=T --filter=T --format=T", "none"),
  search: docker("-f=T --limit=T --filter=T --format=T --no-trunc"),
  container: DOCKER_OBJECTS({
    ls: docker(PS, "none"),
    list: docker(PS, "none"),
    ps: docker(PS, "none"),
    inspect: docker(INSPECT),
    logs: docker(LOGS),
    top: docker(""),
    port: docker(""),
    stats: docker("-a --all --no-stream --no-trunc --format=T"),
    diff: docker(""),
  }),
  image: DOCKER_OBJECTS({
    ls: docker(IMAGES),
    list: docker(IMAGES),
    inspect: docker(INSPECT),
    history: docker("-H -q --human --no-trunc --quiet --format=T"),
  }),
  volume: DOCKER_OBJECTS({ ls: docker(LIST, "none"), list: docker(LIST, "none"), inspect: docker(INSPECT) }),
  network: DOCKER_OBJECTS({ ls: docker(LIST, "none"), list: docker(LIST, "none"), inspect: docker(INSPECT) }),
  system: DOCKER_OBJECTS({
    df: docker("-v --verbose --format=T", "none"),
    info: docker("-f=T --format=T", "none"),
    events: docker("-f=T --since=T --until=T --filter=T --format=T", "none"),
  }),
  compose,
};
listed(
  "docker podman nerdctl",
  spec("-D -l=T --debug --log-level=T", subcommands(DOCKER_SUBCOMMANDS), { stop: true }),
);
listed("docker-compose podman-compose", compose);

const KUBECTL_READS = new Set(
  "get describe logs log top explain version api-resources api-versions cluster-info events".split(" "),
);
const KUBECTL_PAIRS = new Set([
  "config view",
  "config get-contexts",
  "config get-clusters",
  "config current-context",
  "auth can-i",
  "auth whoami",
  "rollout status",
  "rollout history",
]);
listed(
  "kubectl oc",
  spec(
    `-n=T -A -o=T -l=T -w -L=T -f=P -R -c=T -p -v=T --namespace=T --all-namespaces --context=T --cluster=T
     --user=T --output=T --selector=T --field-selector=T --watch --watch-only --show-labels --sort-by=T
     --no-headers --label-columns=T --show-kind --chunk-size=T --ignore-not-found --request-timeout=T
     --filename=P --recursive --container=T --tail=T --since=T --since-time=T --timestamps --previous
     --all-containers --prefix --max-log-requests=T --limit-bytes=T --v=T --show-managed-fields
     --template=T --allow-missing-template-keys --output-watch-events --subresource=T --show-events
     --all --api-group=T --namespaced --cached --short --client --minify --flatten --pod-running-timeout=T
     --containers --sort-by=T --use-protocol-buffers --no-headers`,
    (operands, call) => {
      const [sub = "", action = ""] = operands;
      if (sub !== "" && !KUBECTL_READS.has(sub) && !KUBECTL_PAIRS.has(`${sub} ${action}`)) {
        return unknownOperand(call.label, sub);
      }
      // `-o jsonpath-file=F`, `go-template-file=F`, `custom-columns-file=F` read a file.
      for (const option of call.options) {
        if ((option.name === "-o" || option.name === "--output") && option.value?.includes("file")) {
          return unknownOption(call.label, `${option.name} ${option.value}`);
        }
      }
      return null;
    },
  ),
);

// --- package information ---------------------------------------------------------------------------

/** Subcommands whose words are text, from a set; anything else is not known to be harmless. */
function infoSubcommands(allowed: string): OperandCheck {
  const set = new Set(allowed.trim().split(/\s+/));
  return (operands, call) => {
    const sub = operands[0];
    return sub === undefined || set.has(sub) ? null : unknownOperand(call.label, sub);
  };
}

listed(
  "npm",
  spec(
    `-l -p -a -g -s -q -d -w=T --depth=T --json --long --parseable --all --global --prod --production --dev
     --omit=T --include=T --workspace=T --workspaces --include-workspace-root --link --unicode
     --loglevel=T --silent --quiet --color=T --no-color --package-lock-only --audit-level=T --prefix=P
     --before=T --expect-results --no-fund --no-audit --versions`,
    // Not `docs`, `home`, `repo`, `bugs`, `help` (they open a browser or a viewer).
    infoSubcommands(`ls list la ll view v info show outdated search s se find whoami ping root prefix bin
      explain why fund query sbom doctor completion get config c audit version`),
  ),
);
listed(
  "pip pip3",
  spec(
    `-o -u -e -l -v -q -f --format=T --outdated --uptodate --editable --local --user --not-required
     --exclude-editable --include-editable --verbose --quiet --path=P --exclude=T --all --files
     --disable-pip-version-check --no-color --isolated --no-input --pre --no-python-version-warning`,
    infoSubcommands("list show freeze check config cache debug inspect"),
  ),
);
listed(
  "apt apt-get apt-cache",
  spec(
    `-a -n -f -i -q --installed --upgradable --all-versions --manual-installed --names-only --full
     --important --recurse --no-all-versions --quiet`,
    infoSubcommands("list show search policy depends rdepends madison showpkg showsrc pkgnames stats"),
  ),
);
listed(
  "dpkg dpkg-query",
  spec(
    `-l -L -s -S -p -W -f=T --list --listfiles --status --search --print-avail --show --showformat=T
     --get-selections --print-architecture --print-foreign-architectures`,
    "text",
  ),
);
listed(
  "brew",
  spec(
    "-1 -l -q -v --versions --cask --formula --casks --formulae --json --json? --installed --tree --quiet --verbose --full-name --pinned --multiple",
    infoSubcommands(
      "list ls info abv search outdated deps uses leaves config doctor dr desc home homepage commands",
    ),
  ),
);

// --- shell builtins and wrappers -------------------------------------------------------------------

listed("cd", spec("-L -P -e -@", "text"));
listed("unalias", spec("-a", "text"));
listed("crontab", spec("-l -u=T", "none"));
listed("swapon", spec("-s --show --show? --summary --bytes --noheadings --raw", "none"));
listed(
  "sysctl",
  spec("-a -n -N -e -q -b -r=T --all --values --names --ignore --quiet --binary --pattern=T", "text"),
);
listed("route", spec("-n -e -v -A=T -4 -6 --numeric --extend --verbose", "text"));
listed("arp", spec("-a -n -e -v -i=T -H=T", "text"));
listed("lsof", spec("-i=T -n -P -t -a -l -w -R -p=T -u=T -c=T -s=T", "paths"));
listed(
  "pm2",
  spec(
    "--lines=T --nostream --raw --err --out --json --timestamp",
    infoSubcommands("list ls status jlist prettylist describe show info logs"),
  ),
);
listed("getent", spec("-s=T -i --service=T --no-idn", "text"));
listed(
  "lsb_release",
  spec("-a -d -c -r -i -s -v --all --description --codename --release --id --short", "none"),
);
listed(
  "vmstat",
  spec(
    "-a -d -D -f -m -s -t -w -n -p=T -S=T --active --disk --disk-sum --forks --slabs --stats --timestamp --wide --unit=T",
    "text",
  ),
);
listed("pushd popd", spec("-n -#", "text"));
listed("dirs", spec("-c -l -p -v -#", "text"));
listed("unset", spec("-f -v", "text"));
listed(
  "shift return exit break continue wait jobs times bg fg disown logout caller",
  spec("-l -p -n -r -s -f -a -h", "text"),
);
listed("umask", spec("-S -p", "text"));
listed("ulimit", spec("-a -S -H -c -d -e -f -i -l -m -n -p -q -r -s -t -u -v -x -T", "text"));
listed("eval", spec("", "text", { anyText: true }));
listed("trap", spec("-l -p", "text", { anyText: true }));

/** Operands that are names of variables the line sets: plain shell variables only. */
function variableNames(skip: (word: string, index: number) => boolean): OperandCheck {
  return (operands, call) => {
    for (let i = 0; i < operands.length; i++) {
      const word = operands[i];
      if (skip(word, i)) continue;
      const name = assignedName(word) ?? word;
      if (!isShellVariable(name)) return unknownOperand(call.label, word);
    }
    return null;
  };
}
// `declare -n` (a name reference) and `-x` of a read variable are not listed.
listed(
  "declare typeset local readonly",
  spec(
    "-a -A -i -l -u -r -g -t -p -f -F -x",
    variableNames(() => false),
  ),
);
listed(
  "read",
  spec(
    "-r -s -e -a=T -d=T -n=T -N=T -p=T -t=T -u=T -i=T",
    variableNames(() => false),
  ),
);
listed(
  "mapfile readarray",
  spec(
    "-t -d=T -n=T -O=T -s=T -u=T",
    variableNames(() => false),
  ),
);
listed(
  "getopts",
  spec(
    "",
    variableNames((_word, index) => index !== 1),
  ),
);
listed(
  "let",
  spec(
    "",
    variableNames(() => false),
  ),
);

const SET_OPTIONS = new Set(
  `pipefail errexit nounset xtrace verbose noglob noclobber errtrace functrace posix allexport braceexpand
   hashall histexpand monitor notify physical emacs vi interactive-comments ignoreeof nolog noexec
   onecmd`.split(/\s+/),
);
listed(
  "set",
  spec("-e -u -x -v -f -C -E -T -b -h -m -a -B -H -P -n -t -o=T", (operands, call) => {
    for (const option of call.options) {
      if (option.name === "-o" && option.value !== null && !SET_OPTIONS.has(option.value)) {
        return unknownOption(call.label, `-o ${option.value}`);
      }
    }
    for (let i = 0; i < operands.length; i++) {
      if (operands[i] === "+o" && operands[i + 1] !== undefined && !SET_OPTIONS.has(operands[i + 1])) {
        return unknownOperand(call.label, `+o ${operands[i + 1]}`);
      }
    }
    return null;
  }),
);

/** `shopt -s` of options that change neither what a glob may name nor what a word runs. */
const SHOPT_OPTIONS = new Set(
  `nullglob failglob nocaseglob nocasematch globstar lastpipe inherit_errexit checkwinsize histappend
   cmdhist lithist xpg_echo huponexit checkjobs progcomp promptvars`.split(/\s+/),
);
listed(
  "shopt",
  spec("-s -u -p -q -o", (operands, call) => {
    if (!call.has("-s", "-u")) return null;
    const unknown = operands.find((word) => !SHOPT_OPTIONS.has(word));
    return unknown === undefined ? null : unknownOperand(call.label, unknown);
  }),
);

/** `NAME=value …` before the command an env-like wrapper runs: harmless variables only. */
const assignmentsThenCommand: OperandCheck = (operands) => {
  for (const word of operands) {
    const name = assignedName(word);
    if (name === null) return null;
    if (!isHarmlessVariable(name)) {
      return dangerous("environment-assignment", `environment assignment: ${shown(name)}`);
    }
  }
  return null;
};

listed(
  "env",
  spec("-i -0 -u=T --ignore-environment --null --unset=T", assignmentsThenCommand, { stop: true }),
);
listed("time", spec("-p", assignmentsThenCommand, { stop: true }));
listed("nohup builtin setsid", spec("-f -w -c --fork --wait --ctty", "command", { stop: true }));
listed("nice", spec("-n=T --adjustment=T -#", "command", { stop: true }));
listed(
  "timeout",
  spec("-s=T -k=T -v --signal=T --kill-after=T --preserve-status --foreground --verbose", "command", {
    stop: true,
  }),
);
listed("command", spec("-p -v -V", "command", { stop: true }));
listed("exec", spec("-a=T -c -l", "command", { stop: true }));
listed("stdbuf", spec("-i=T -o=T -e=T --input=T --output=T --error=T", "command", { stop: true }));
listed(
  "watch",
  spec(
    "-n=T -d? -t -b -e -g -c -x -p -w -q --interval=T --differences --differences? --no-title --beep --errexit --chgexit --color --exec --precise --no-wrap",
    "command",
    { stop: true },
  ),
);
listed(
  "xargs",
  spec(
    `-0 -r -t -x -p -n=T -I=T -i? -L=T -l? -P=T -d=T -s=T -E=T -a=P --null --no-run-if-empty --verbose
     --exit --interactive --max-args=T --replace? --max-lines? --max-procs=T --delimiter=T --max-chars=T
     --eof? --arg-file=P --open-tty`,
    "command",
    { stop: true },
  ),
);
/**
 * `bash -c 'LINE' [NAME ARGS…]` (its rule classifies LINE). Not listed: `-i`, `-l` and `--login`,
 * `--rcfile`: they run start-up files.
 */
listed(
  "sh bash zsh dash ksh mksh ash",
  spec(
    "-c -e -u -x -v -f -C -E -T -B -P -n -o=T --norc --noprofile --posix --noediting --restricted",
    "text",
  ),
);
