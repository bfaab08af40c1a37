//! Why a stored command runs code written in the file it came from (SPEC
//! R2, N13) — a shell's `-c`, an interpreter's `-e`, tar's `-I`, sed's `e` —
//! in words the plan can show. It explains; it never decides: which command
//! needs the second consent is the allowlist's question (`consent::allow`),
//! and every command it does not vouch for needs it whether or not this
//! table knows why.
//!
//! The check is a rule plus tables, not a list of spellings. **The rule**:
//! every word of the argument vector is looked at, wherever it stands and
//! whatever wraps it (`env`, `sudo`, `setpriv`, `xvfb-run`, `mpirun`, the
//! dynamic loader, …: a wrapper needs no entry, as its wrapped command is a
//! later word). A word naming a shell or interpreter by its basename is read
//! with **that family's** option table, as its own parser would, up to its
//! script operand: one of the family's inline-code options before it is a
//! finding (`sh -c` is code, `bash -e run.sh` is errexit, `python3 bench.py
//! -c cfg.yaml` is an argument of the script). **The list**: programs whose
//! own options run a command or code (tar, sed, strace, find, awk, git,
//! ssh, …), each with its own check.
//!
//! This reads the argument vector only. It is a check for visible patterns,
//! not a sandbox: a compiled program or a script file may do anything, and
//! only the confirmation of the exact argv protects against that. Where the
//! arguments are ambiguous the check errs towards flagging, since a false
//! flag costs one extra consent and a miss costs nothing less than the run.

use vernier_model::display::{inert, inert_line};

/// The longest argument vector read word by word; a longer one is flagged
/// as not checked rather than read at a cost that grows with its square
/// (every word may start a command whose options run to the end).
const MOST_WORDS: usize = 1024;

/// Why `argv` runs code written in the file it came from, in one sentence
/// naming the word and its option ("runs code written in their file (env …
/// sh -c): sh runs the text given with -c as shell commands"), or `None`
/// when it visibly does not.
pub fn inline_code(argv: &[String]) -> Option<String> {
    if argv.len() > MOST_WORDS {
        return Some(format!(
            "runs code written in their file, or may: its {} words are more than the {MOST_WORDS} this check reads",
            argv.len()
        ));
    }
    let (at, hit) = find(argv)?;
    let head = if at > 0 { format!("{} … ", shown(&argv[0])) } else { String::new() };
    let option = if hit.option.is_empty() { String::new() } else { format!(" {}", hit.option) };
    // The words quoted from their file are shown inert, wherever the
    // sentence is printed.
    Some(inert_line(format!("runs code written in their file ({head}{}{option}): {}", shown(&argv[at]), hit.why)))
}

/// Where a command line given as one word (`env -S`, `rsync -e`, a
/// hyperfine command) runs code ("in which sh -c: …"), read as the
/// argument vector it becomes.
fn in_command_line(line: &str) -> Option<String> {
    let words = shlex::split(line)?;
    if words.len() > MOST_WORDS {
        return Some(format!("whose {} words are more than the {MOST_WORDS} this check reads", words.len()));
    }
    let (at, found) = find(&words)?;
    Some(format!("in which {} {}: {}", shown(&words[at]), found.option, found.why))
}

/// What one word's program does with code: the option that carries it (as
/// shown; empty when the program's operand is the code) and why that runs
/// code.
struct Hit {
    option: String,
    why: String,
}

/// The first word of `argv` whose program runs code from its arguments,
/// with what it does.
fn find(argv: &[String]) -> Option<(usize, Hit)> {
    (0..argv.len()).find_map(|at| at_word(&argv[at..]).map(|hit| (at, hit)))
}

/// Whether the program named by `words[0]` runs code given in `words[1..]`.
fn at_word(words: &[String]) -> Option<Hit> {
    let word = words.first()?;
    let args = &words[1..];
    // PERL5OPT's options are read as if given to perl itself.
    if let Some(value) = word.strip_prefix("PERL5OPT=") {
        let found = code_option(family("perl")?, &shlex::split(value)?)?;
        let why = format!("perl reads PERL5OPT as its own options, and {} there runs Perl code", found.option);
        return hit(&found.option, why);
    }
    let name = program(word);
    if let Some(i) = family(&name)
        && let Some(found) = code_option(i, args)
    {
        let (program, option) = (shown(word), &found.option);
        let why = match found.how {
            How::Option => format!("{program} runs the text given with {option} as {}", i.runs),
            How::Module => format!("{program} writes the value of {option} into a `use` line, and this one holds code"),
            How::RunsModule => format!("{program} runs the text after {option} as {}", i.runs),
        };
        return hit(option, why);
    }
    let tool = TOOLS
        .iter()
        .find(|t| t.names.iter().any(|n| *n == name || n.strip_prefix('*').is_some_and(|end| name.ends_with(end))))?;
    (tool.check)(&name, args)
}

/// A program's name as shown in a finding: its basename, made inert.
fn shown(word: &str) -> String {
    inert(word.rsplit(['/', '\\']).next().unwrap_or(word)).into_owned()
}

/// The program's name as a family: without its directory, a `.exe`, or a
/// version (`python3.12` is python, `perl5.36` is perl), in lower case.
fn program(path: &str) -> String {
    let base = path.rsplit(['/', '\\']).next().unwrap_or(path).to_ascii_lowercase();
    let base = base.strip_suffix(".exe").unwrap_or(&base);
    let trimmed = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-');
    if trimmed.is_empty() { base.to_owned() } else { trimmed.to_owned() }
}

/// A shell or interpreter family and how its own parser reads options: the
/// option letters and whole-word options that introduce code, and those
/// whose value must be skipped so it is not taken for the script.
struct Interpreter {
    /// The family's names, as [`program`] gives them.
    names: &'static [&'static str],
    /// What the code is, for the finding ("shell commands").
    runs: &'static str,
    /// Option letters that introduce code, alone or in a cluster (`-ec`).
    code: &'static str,
    /// Whole-word options that introduce code, also as `--opt=value`.
    long_code: &'static [&'static str],
    /// Letters whose value follows, attached or as the next word.
    value: &'static str,
    /// Letters whose value can only be attached (the rest of the word).
    attached: &'static str,
    /// What the family's module options do (`perl -M`, `python -m`).
    modules: Modules,
    /// `+o` clusters as well as `-o` (the POSIX shells).
    plus: bool,
    /// Options may follow operands (`su user -c …`, `vim file -c …`).
    anywhere: bool,
}

/// A family with only these fields set; the rest empty.
const fn family_of(names: &'static [&'static str], runs: &'static str, code: &'static str) -> Interpreter {
    Interpreter {
        names,
        runs,
        code,
        long_code: &[],
        value: "",
        attached: "",
        modules: Modules::None,
        plus: false,
        anywhere: false,
    }
}

const INTERPRETERS: &[Interpreter] = &[
    Interpreter {
        value: "oO",
        plus: true,
        ..family_of(
            &[
                "sh", "bash", "dash", "zsh", "ksh", "mksh", "lksh", "pdksh", "oksh", "ash", "hush", "yash", "posh",
                "rbash", "bosh", "csh", "tcsh", "elvish", "xonsh", "osh", "ysh", "nu", "expect",
            ],
            "shell commands",
            "c",
        )
    },
    Interpreter { long_code: &["--command", "--init-command"], ..family_of(&["fish"], "shell commands", "cC") },
    // Programs that hand the value of their `-c` to a shell; their options
    // may follow the user or file they name.
    Interpreter {
        long_code: &["--command", "--session-command"],
        value: "gGswEIOBTm",
        anywhere: true,
        ..family_of(&["su", "runuser", "script", "sg", "flock"], "shell commands", "c")
    },
    // `-m` ends the options: the module's own arguments follow (see
    // `code_option` for the modules that run code given to them).
    Interpreter {
        value: "WXQ",
        modules: Modules::Python,
        ..family_of(&["python", "pypy", "jython", "micropython", "graalpy"], "Python code", "c")
    },
    // `-l` and `-0` take only digits, so `-lne` still reaches its `e`.
    Interpreter {
        value: "I",
        attached: "CxDi",
        modules: Modules::Perl,
        ..family_of(&["perl", "cperl"], "Perl code", "eE")
    },
    Interpreter { value: "IrCE", attached: "FxKWT", ..family_of(&["ruby", "jruby", "truffleruby"], "Ruby code", "e") },
    Interpreter {
        long_code: &["--eval", "--print", "eval"],
        value: "rC",
        ..family_of(&["node", "nodejs", "bun", "deno"], "JavaScript", "ep")
    },
    Interpreter { value: "cdzfFSt", ..family_of(&["php"], "PHP code", "rBRE") },
    Interpreter { value: "lj", ..family_of(&["lua", "luajit"], "Lua code", "e") },
    Interpreter { ..family_of(&["rscript", "r"], "R code", "e") },
    Interpreter { long_code: &["--eval", "--print"], value: "JLptC", ..family_of(&["julia"], "Julia code", "eE") },
    Interpreter { value: "ls", ..family_of(&["osascript"], "AppleScript", "e") },
    Interpreter {
        long_code: &["--eval", "-eval", "--execute", "-execute"],
        anywhere: true,
        ..family_of(&["emacs", "xemacs"], "Emacs Lisp", "")
    },
    // Editors run Ex commands given on their command line (`:!` runs a shell).
    Interpreter {
        long_code: &["--cmd"],
        value: "uiTSwWU",
        anywhere: true,
        ..family_of(&["vim", "vi", "nvim", "ex", "view", "gvim", "rvim", "vimdiff"], "editor commands", "c")
    },
    // Debuggers run their own commands (`shell …` runs a shell); their
    // options are whole words, never clusters.
    Interpreter {
        long_code: &[
            "-ex",
            "--ex",
            "-iex",
            "--iex",
            "-eval-command",
            "--eval-command",
            "-init-eval-command",
            "--init-eval-command",
            "-x",
            "--x",
            "-command",
            "--command",
            "-ix",
            "-init-command",
            "--init-command",
        ],
        anywhere: true,
        ..family_of(&["gdb", "gdb-multiarch", "cgdb"], "debugger commands", "")
    },
    Interpreter {
        long_code: &["-o", "--one-line", "-O", "--one-line-before-file", "-k", "--one-line-on-crash"],
        anywhere: true,
        ..family_of(&["lldb"], "debugger commands", "")
    },
];

/// What a family's module options do.
#[derive(Clone, Copy, PartialEq)]
enum Modules {
    None,
    /// `-m module` ends the options: the module's arguments follow, code
    /// only for the modules that run code given to them (`timeit`, `pdb`).
    Python,
    /// `-M`/`-m` (and `-d:`) paste their value into `use NAME …`: one that
    /// is not a plain module name is code.
    Perl,
}

/// What [`code_option`] found: the option as shown, and how it runs code.
struct Found {
    option: String,
    how: How,
}

enum How {
    /// It introduces code of the family's language.
    Option,
    /// A module option whose value holds code (`perl '-Mstrict;system …'`).
    Module,
    /// A module that runs the code given to it (`python -m timeit STMT`).
    RunsModule,
}

fn family(name: &str) -> Option<&'static Interpreter> {
    INTERPRETERS.iter().find(|i| i.names.contains(&name))
}

/// The option word that introduces code, scanning options as getopt does:
/// clustered letters, a value attached or in the next word, `--` ending
/// them, and (unless options may follow) the first operand ending them too.
fn code_option(i: &Interpreter, args: &[String]) -> Option<Found> {
    let found = |option: String, how: How| Some(Found { option, how });
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word == "--" {
            return None;
        }
        let whole = |l: &&&str| word.strip_prefix(**l).is_some_and(|r| r.is_empty() || r.starts_with('='));
        if let Some(long) = i.long_code.iter().find(whole) {
            return found((*long).to_owned(), How::Option);
        }
        let letters = match word.strip_prefix('-').or_else(|| word.strip_prefix('+').filter(|_| i.plus)) {
            Some(l) if !l.is_empty() && !l.starts_with('-') => l,
            _ if word.starts_with("--") => {
                // A long option may take the next word as its value
                // (`bash --rcfile FILE -c …`): skip it rather than take it
                // for the first operand, erring towards flagging.
                if !word.contains('=') && words.as_slice().first().is_some_and(|w| !w.starts_with('-')) {
                    words.next();
                }
                continue;
            }
            _ if i.anywhere => continue,
            _ => return None,
        };
        for (k, letter) in letters.char_indices() {
            let rest = &letters[k + letter.len_utf8()..];
            if i.code.contains(letter) {
                return found(word.clone(), How::Option);
            }
            match (i.modules, letter) {
                (Modules::Perl, 'M' | 'm') => {
                    let value = if rest.is_empty() { words.next().map_or("", String::as_str) } else { rest };
                    if !plain_module(value) {
                        return found(format!("-{letter}"), How::Module);
                    }
                    break;
                }
                // `-d:Module` is `use Devel::Module`, like `-M`.
                (Modules::Perl, 'd') if rest.starts_with(':') || rest.starts_with("t:") => {
                    if !plain_module(rest.trim_start_matches('t').trim_start_matches(':')) {
                        return found("-d:".to_owned(), How::Module);
                    }
                    break;
                }
                (Modules::Python, 'm') => {
                    let module = if rest.is_empty() { words.next().map_or("", String::as_str) } else { rest };
                    let runs_code = ["timeit", "pdb"].contains(&module.to_ascii_lowercase().as_str());
                    return (runs_code && !words.as_slice().is_empty())
                        .then(|| Found { option: format!("-m {}", inert(module)), how: How::RunsModule });
                }
                _ => {}
            }
            if i.attached.contains(letter) {
                break;
            }
            if i.value.contains(letter) {
                // A value in the next word; an option there is read as
                // one, so an optional value never hides a `-c`.
                if rest.is_empty() && words.as_slice().first().is_some_and(|w| !w.starts_with('-')) {
                    words.next();
                }
                break;
            }
        }
    }
    None
}

/// A module name perl pastes into `use NAME split(/,/, q{ARGS})` that holds
/// no code: `-M-strict`, `List::Util=sum,max`.
fn plain_module(value: &str) -> bool {
    let (name, args) = value.split_once('=').unwrap_or((value, ""));
    let name = name.strip_prefix('-').unwrap_or(name);
    name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
        && args.chars().all(|c| c.is_ascii_alphanumeric() || "_,:.-/".contains(c))
}

/// A program whose own options (or operands) run a command or code, with
/// the check that reads them.
struct Tool {
    /// Names as [`program`] gives them; `*awk` is any name ending in `awk`.
    names: &'static [&'static str],
    check: fn(&str, &[String]) -> Option<Hit>,
}

const TOOLS: &[Tool] = &[
    Tool { names: &["tar", "gtar", "bsdtar"], check: (tar) },
    Tool { names: &["sed", "gsed"], check: (sed) },
    Tool { names: &["strace"], check: (strace) },
    Tool { names: &["find", "gfind", "bfs"], check: (find_exec) },
    Tool { names: &["fd", "fdfind"], check: (fd_exec) },
    Tool { names: &["*awk"], check: (awk) },
    Tool { names: &["env"], check: (env_split) },
    Tool { names: &["capsh"], check: (capsh) },
    Tool { names: &["sudo", "doas"], check: (sudo_shell) },
    Tool { names: &["watch", "hyperfine", "parallel"], check: (shell_runner) },
    Tool { names: &["ssh", "scp", "sftp", "rsync"], check: (ssh) },
    Tool { names: &["make", "gmake"], check: (make) },
    Tool { names: &["git"], check: (git) },
    Tool { names: &["cmd"], check: (cmd) },
    Tool { names: &["pwsh", "powershell"], check: (powershell) },
    Tool { names: &["vim", "vi", "nvim", "ex", "view", "gvim", "rvim", "vimdiff"], check: (editor_plus) },
];

fn hit(option: &str, why: impl Into<String>) -> Option<Hit> {
    Some(Hit { option: inert(option).into_owned(), why: why.into() })
}

/// tar runs a program given with `-I`/`--use-compress-program`,
/// `--to-command`, `--checkpoint-action=exec=`, `-F`/`--info-script`,
/// `--new-volume-script` and `--rsh-command`/`--rmt-command` (through a
/// shell). Long options may be abbreviated, as getopt allows.
fn tar(_: &str, args: &[String]) -> Option<Hit> {
    const RUN: &[&str] = &[
        "--use-compress-program",
        "--to-command",
        "--info-script",
        "--new-volume-script",
        "--rsh-command",
        "--rmt-command",
    ];
    for (k, word) in args.iter().enumerate() {
        if word == "--" {
            return None;
        }
        if let Some(long) = word.strip_prefix("--") {
            let name = format!("--{}", long.split('=').next().unwrap_or(long));
            if name.len() >= 5 && RUN.iter().any(|r| r.starts_with(&name)) {
                return hit(&name, format!("tar runs the program given with {name}"));
            }
            let value = long.split_once('=').map(|(_, v)| v).or_else(|| args.get(k + 1).map(String::as_str));
            if name.len() >= 14 && "--checkpoint-action".starts_with(&name) && value.is_some_and(|v| v.contains("exec"))
            {
                return hit(&name, "tar runs the command given to --checkpoint-action=exec");
            }
            continue;
        }
        // Old-style options (`tar cIf …`) are the first word, without a
        // dash; their values are the next words.
        let old_style = k == 0 && !word.starts_with('-');
        let Some(letters) = word.strip_prefix('-').or_else(|| old_style.then_some(word.as_str())) else { continue };
        for letter in letters.chars() {
            match letter {
                'I' => return hit("-I", "tar runs the program given with -I to compress"),
                'F' => return hit("-F", "tar runs the script given with -F at the end of each volume"),
                // Letters whose value is the rest of the word.
                c if "fCbgGKNTVXLH".contains(c) && !old_style => break,
                _ => {}
            }
        }
    }
    None
}

/// GNU sed runs a shell command with its `e` command and the `e` flag of
/// `s///`; `--sandbox` refuses both. The script is each `-e` value, or the
/// first operand when there is no `-e` or `-f`.
fn sed(_: &str, args: &[String]) -> Option<Hit> {
    if args.iter().any(|a| a == "--sandbox") {
        return None;
    }
    let (mut scripts, mut operands, mut given) = (Vec::<&str>::new(), Vec::<&str>::new(), false);
    let mut words = args.iter();
    while let Some(word) = words.next() {
        match word.as_str() {
            "-e" | "--expression" => {
                given = true;
                scripts.extend(words.next().map(String::as_str));
            }
            "-f" | "--file" => {
                given = true;
                words.next();
            }
            "-l" | "--line-length" => {
                words.next();
            }
            "--" => operands.extend(words.by_ref().map(String::as_str)),
            w if w.starts_with("--expression=") => {
                given = true;
                scripts.push(&word["--expression=".len()..]);
            }
            w if w.starts_with("--file=") => given = true,
            w if w.starts_with("--") => {}
            w if w.starts_with('-') && w.len() > 1 => {
                for (k, letter) in w.char_indices().skip(1) {
                    let rest = &w[k + letter.len_utf8()..];
                    match letter {
                        // `-i` takes an attached suffix: `-ie` is a suffix "e".
                        'i' => break,
                        'e' | 'f' | 'l' => {
                            given |= letter != 'l';
                            let value = if rest.is_empty() { words.next().map(String::as_str) } else { Some(rest) };
                            if letter == 'e' {
                                scripts.extend(value);
                            }
                            break;
                        }
                        _ => {}
                    }
                }
            }
            _ => operands.push(word),
        }
    }
    if !given {
        scripts.extend(operands.first());
    }
    scripts.iter().find_map(|s| sed_runs_commands(s)).and_then(|how| match how {
        'e' => hit("e", "sed runs the text after its e command as a shell command"),
        _ => hit("s///e", "sed runs the result of an s command with the e flag as a shell command"),
    })
}

/// `Some('e')` when the sed script has an `e` command, `Some('s')` when an
/// `s` command has the `e` flag: both run a shell command.
fn sed_runs_commands(script: &str) -> Option<char> {
    let c: Vec<char> = script.chars().collect();
    let at = |i: usize| c.get(i).copied();
    let skip_space = |mut i: usize| {
        while at(i).is_some_and(|x| x == ' ' || x == '\t') {
            i += 1;
        }
        i
    };
    // The end of a delimited field starting at `i`, past its delimiter.
    let field = |mut i: usize, d: char| {
        while let Some(x) = at(i) {
            i += if x == '\\' { 2 } else { 1 };
            if x == d {
                break;
            }
        }
        i
    };
    let to_line_end = |mut i: usize| {
        while at(i).is_some_and(|x| x != '\n') {
            i += if at(i) == Some('\\') { 2 } else { 1 };
        }
        i
    };
    let address = |mut i: usize| {
        match at(i) {
            Some('/') => i = field(i + 1, '/'),
            Some('\\') => i = at(i + 1).map_or(i + 1, |d| field(i + 2, d)),
            _ => {
                while at(i).is_some_and(|x| x.is_ascii_digit() || x == '$' || x == '~' || x == '+') {
                    i += 1;
                }
            }
        }
        while at(i).is_some_and(|x| x == 'I' || x == 'M') {
            i += 1;
        }
        i
    };
    let mut i = 0;
    while i < c.len() {
        while at(i).is_some_and(|x| x.is_whitespace() || x == ';' || x == '{' || x == '}') {
            i += 1;
        }
        i = skip_space(address(i));
        if at(i) == Some(',') {
            i = skip_space(address(skip_space(i + 1)));
        }
        while at(i) == Some('!') {
            i = skip_space(i + 1);
        }
        let Some(command) = at(i) else { break };
        i += 1;
        match command {
            'e' => return Some('e'),
            's' | 'y' => {
                let Some(d) = at(i) else { break };
                i = field(field(i + 1, d), d);
                if command == 's' {
                    while let Some(flag) = at(i).filter(|x| x.is_ascii_alphanumeric()) {
                        if flag == 'e' {
                            return Some('s');
                        }
                        if flag == 'w' {
                            i = to_line_end(i);
                            break;
                        }
                        i += 1;
                    }
                }
            }
            'a' | 'i' | 'c' | 'r' | 'R' | 'w' | 'W' | ':' | '#' => i = to_line_end(i),
            'b' | 't' | 'T' => {
                while at(i).is_some_and(|x| x != ';' && x != '\n') {
                    i += 1;
                }
            }
            _ => {}
        }
    }
    None
}

/// strace writes its trace to a command when `-o`'s value starts with `|`
/// or `!`.
fn strace(_: &str, args: &[String]) -> Option<Hit> {
    let piped = |v: &str| v.starts_with('|') || v.starts_with('!');
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if let Some(v) = word.strip_prefix("--output=") {
            if piped(v) {
                return hit("--output", "strace runs the command given to --output after a |");
            }
            continue;
        }
        if word == "--output" {
            if words.next().is_some_and(|v| piped(v)) {
                return hit("--output", "strace runs the command given to --output after a |");
            }
            continue;
        }
        let Some(letters) = word.strip_prefix('-').filter(|l| !l.starts_with('-')) else {
            if word.starts_with("--") {
                continue;
            }
            // The traced command: its own words are looked at on their own.
            return None;
        };
        for (k, letter) in letters.char_indices() {
            if "abeEIoOpPsSuUX".contains(letter) {
                let rest = &letters[k + letter.len_utf8()..];
                let value = if rest.is_empty() { words.next().map_or("", String::as_str) } else { rest };
                if letter == 'o' && piped(value) {
                    return hit("-o", "strace runs the command given to -o after a |");
                }
                break;
            }
        }
    }
    None
}

fn find_exec(name: &str, args: &[String]) -> Option<Hit> {
    let option = args.iter().find(|a| ["-exec", "-execdir", "-ok", "-okdir"].contains(&a.as_str()))?;
    hit(option, format!("{name} runs the command given after {option} for each file"))
}

fn fd_exec(name: &str, args: &[String]) -> Option<Hit> {
    let option = args.iter().find(|a| {
        ["-x", "-X", "--exec", "--exec-batch"].contains(&a.as_str())
            || a.starts_with("--exec=")
            || a.starts_with("--exec-batch=")
    })?;
    hit(option, format!("{name} runs the command given with {option} for the files it finds"))
}

/// awk runs shell commands through `system(…)` and `|` pipes; its program is
/// the first operand, or a `-e`/`--source` value (`-f`/`-E` name a file).
fn awk(name: &str, args: &[String]) -> Option<Hit> {
    let mut programs: Vec<&str> = Vec::new();
    let mut from_file = false;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        match word.as_str() {
            "-f" | "--file" | "-E" | "--exec" => {
                from_file = true;
                words.next();
            }
            "-e" | "--source" => programs.extend(words.next().map(String::as_str)),
            "-v" | "-F" | "-l" | "-i" | "--assign" | "--field-separator" | "--load" | "--include" => {
                words.next();
            }
            "--" => {
                programs.extend(words.next().filter(|_| !from_file).map(String::as_str));
                break;
            }
            w if w.starts_with("--source=") => programs.push(&word["--source=".len()..]),
            w if w.starts_with("--file=") || w.starts_with("--exec=") => from_file = true,
            w if w.starts_with('-') && w.len() > 1 => {}
            _ => {
                if !from_file {
                    programs.push(word);
                }
                break;
            }
        }
    }
    programs
        .into_iter()
        .find(|p| p.contains("system") || p.replace("||", "").contains('|'))
        .and_then(|_| hit("program", format!("{name}'s program calls system or a pipe, which run shell commands")))
}

/// `env -S 'sh -c x'` (and `-iS`, `--split-string=`): a command line in one
/// word, read as the argument vector it becomes.
fn env_split(_: &str, args: &[String]) -> Option<Hit> {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let value = match word.as_str() {
            "--split-string" => words.next()?.clone(),
            w if w.starts_with("--split-string=") => w["--split-string=".len()..].to_owned(),
            // `S` anywhere in a cluster of letters: its value is the rest of
            // the word, or the next word.
            w if w.starts_with('-') && !w.starts_with("--") && w.contains('S') => {
                let rest = &w[w.find('S')? + 1..];
                if rest.is_empty() { words.next()?.clone() } else { rest.to_owned() }
            }
            _ => continue,
        };
        return hit("-S", format!("env -S runs its value as a command, {}", in_command_line(&value)?));
    }
    None
}

/// capsh runs `/bin/bash` with the words after `--`.
fn capsh(_: &str, args: &[String]) -> Option<Hit> {
    let rest = &args[args.iter().position(|a| a == "--")? + 1..];
    let option = code_option(family("bash")?, rest)?.option;
    hit(
        &format!("-- {option}"),
        format!("capsh hands the words after -- to bash, and {option} there runs shell commands"),
    )
}

/// `sudo -s`/`-i` (and doas's) run their command through the user's shell.
fn sudo_shell(name: &str, args: &[String]) -> Option<Hit> {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if matches!(word.as_str(), "--shell" | "--login") {
            return hit(word, format!("{name} {word} runs its command through a shell"));
        }
        if word.starts_with("--") {
            continue;
        }
        let letters = word.strip_prefix('-')?;
        for (k, letter) in letters.char_indices() {
            if letter == 's' || letter == 'i' {
                return hit(word, format!("{name} -{letter} runs its command through a shell"));
            }
            if "uUgpChrTDRc".contains(letter) {
                if k + letter.len_utf8() == letters.len() {
                    words.next();
                }
                break;
            }
        }
    }
    None
}

/// Programs that hand their command to a shell as one string, unless told
/// not to: `watch -x` then runs its argument vector (its words are looked at
/// on their own), `hyperfine -N` splits each command line itself, so each is
/// read as the argument vector it becomes.
fn shell_runner(name: &str, args: &[String]) -> Option<Hit> {
    let no_shell: &[&str] = match name {
        "watch" => &["-x", "--exec"],
        "hyperfine" => &["-N", "--shell=none"],
        _ => &[],
    };
    let direct = args.iter().any(|a| no_shell.contains(&a.as_str()))
        || (name == "hyperfine"
            && args.windows(2).any(|w| matches!(w[0].as_str(), "-S" | "--shell") && w[1] == "none"));
    let mut commands = args.iter().filter(|a| !a.starts_with('-'));
    if !direct {
        commands.next()?;
        return hit("", format!("{name} hands its command to a shell as one string"));
    }
    if name != "hyperfine" {
        return None;
    }
    commands.find_map(|line| hit("", format!("hyperfine runs the command line '{line}', {}", in_command_line(line)?)))
}

/// ssh runs a command on the remote host's shell when one follows the host;
/// `-o ProxyCommand`/`LocalCommand` run one here (scp, sftp and rsync pass
/// them on); rsync's `-e`/`--rsh` is a command line of its own.
fn ssh(name: &str, args: &[String]) -> Option<Hit> {
    if let Some(option) = args.iter().find(|a| {
        let a = a.to_ascii_lowercase();
        a.contains("proxycommand") || a.contains("localcommand") || a.contains("knownhostscommand")
    }) {
        return hit(option, format!("{name}'s option {option} runs a command"));
    }
    if name == "rsync" {
        let mut words = args.iter();
        while let Some(word) = words.next() {
            let value = match word.as_str() {
                "-e" | "--rsh" => words.next()?.clone(),
                w if w.starts_with("--rsh=") => w["--rsh=".len()..].to_owned(),
                _ => continue,
            };
            return hit("-e", format!("rsync -e runs its value as a command, {}", in_command_line(&value)?));
        }
        return None;
    }
    if name != "ssh" {
        return None;
    }
    let mut words = args.iter();
    let mut host = false;
    while let Some(word) = words.next() {
        if word == "--" {
            continue;
        }
        if let Some(letters) = word.strip_prefix('-').filter(|_| !host) {
            for (k, letter) in letters.char_indices() {
                if "BbcDEeFIiJLlmOoPpQRSWw".contains(letter) {
                    if k + letter.len_utf8() == letters.len() {
                        words.next();
                    }
                    break;
                }
            }
            continue;
        }
        if host {
            return hit(word, "ssh runs the words after the host as a command in the remote host's shell");
        }
        host = true;
    }
    None
}

fn make(name: &str, args: &[String]) -> Option<Hit> {
    args.iter().find(|a| a.starts_with("--eval")).and_then(|_| {
        hit("--eval", format!("{name} --eval reads its value as makefile text, whose $(shell …) runs commands"))
    })
}

fn git(_: &str, args: &[String]) -> Option<Hit> {
    let option = args
        .iter()
        .take_while(|a| a.starts_with('-') || a.contains('='))
        .find(|a| a.as_str() == "-c" || a.starts_with("--config-env"))?;
    hit(
        option,
        format!(
            "git {option} sets configuration, and settings such as an alias starting with ! or core.pager run commands"
        ),
    )
}

/// cmd.exe runs the rest of its command line after `/c`, `/k` or `/r`.
fn cmd(_: &str, args: &[String]) -> Option<Hit> {
    let option = args.iter().find(|a| {
        let a = a.to_ascii_lowercase();
        ["/c", "/k", "/r"].iter().any(|o| a == *o || (a.starts_with(o) && a[2..].starts_with(['"', ' '])))
    })?;
    hit(option, format!("cmd runs the rest of its command line after {option} as commands"))
}

/// PowerShell takes any unambiguous prefix of its parameters, with `-`,
/// `--` or `/`: `-c`, `-Command`, `-e`, `-EncodedCommand`, `-CommandWithArgs`
/// run code; `-File` ends them. Windows PowerShell (`powershell`, not
/// `pwsh`) runs a bare argument as a command too.
fn powershell(name: &str, args: &[String]) -> Option<Hit> {
    // Parameters whose value is the next word, by full name (any prefix
    // counts) and by alias.
    const VALUE: &[&str] = &[
        "executionpolicy",
        "windowstyle",
        "inputformat",
        "outputformat",
        "version",
        "psconsolefile",
        "configurationname",
        "workingdirectory",
        "settingsfile",
        "custompipename",
    ];
    const VALUE_ALIAS: &[&str] = &["ep", "ex", "if", "of", "wd"];
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let Some(param) = word.strip_prefix("--").or_else(|| word.strip_prefix(['-', '/'])) else {
            if name == "powershell" {
                return hit(word, "powershell runs a bare argument as a command");
            }
            return None;
        };
        let param = param.split(':').next().unwrap_or(param).to_ascii_lowercase();
        let prefix_of = |full: &str, first: char| param.starts_with(first) && full.starts_with(param.as_str());
        if prefix_of("command", 'c')
            || prefix_of("encodedcommand", 'e')
            || prefix_of("commandwithargs", 'c')
            || matches!(param.as_str(), "ec" | "cwa")
        {
            return hit(word, format!("{name} {word} runs the text that follows as PowerShell"));
        }
        if prefix_of("file", 'f') {
            return None;
        }
        if VALUE.iter().any(|full| full.starts_with(param.as_str())) || VALUE_ALIAS.contains(&param.as_str()) {
            words.next();
        }
    }
    None
}

/// vim's `+command` word runs an Ex command (`+42` and `+/pattern` only
/// move the cursor).
fn editor_plus(name: &str, args: &[String]) -> Option<Hit> {
    let word = args.iter().find(|a| {
        a.strip_prefix('+')
            .is_some_and(|c| !c.is_empty() && !c.starts_with('/') && !c.bytes().all(|b| b.is_ascii_digit()))
    })?;
    hit("+command", format!("{name} runs the Ex command written after + ({})", inert(word)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &str) -> Vec<String> {
        shlex::split(line).expect("test argv")
    }

    /// One named test per spelling: `name: "argv"` is flagged.
    macro_rules! flagged {
        ($($name:ident: $line:expr,)*) => {$(
            #[test]
            fn $name() {
                assert!(inline_code(&argv($line)).is_some(), "not flagged: {}", $line);
            }
        )*};
    }

    /// One named test per spelling: `name: "argv"` is not flagged.
    macro_rules! not_flagged {
        ($($name:ident: $line:expr,)*) => {$(
            #[test]
            fn $name() {
                assert_eq!(inline_code(&argv($line)), None, "{}", $line);
            }
        )*};
    }

    // SPEC R2 (issue 31, finding 6): each spelling that ran with --yes alone.
    flagged! {
        dynamic_loader_wrapping_sh: "/lib64/ld-linux-x86-64.so.2 /bin/sh -c 'touch m'",
        setpriv_wrapping_sh: "setpriv --reuid=0 sh -c 'touch m'",
        perl_module_option_holding_code: "perl '-Mstrict;system(q(touch m))'",
        tar_compress_program: "tar -cf /dev/null -I 'touch m;cat' .",
        sed_e_command: "sed -n '1e touch m' /dev/null",
        strace_output_to_a_pipe: "strace -o '|touch m' /bin/true",
        capsh_hands_to_bash: "capsh -- -c 'touch m'",
        xvfb_run_wrapping_sh: "xvfb-run -a sh -c 'touch m'",
        ssh_agent_wrapping_sh: "ssh-agent sh -c 'touch m'",
        mpirun_wrapping_sh: "mpirun -np 2 sh -c 'touch m'",
        srun_wrapping_sh: "srun -n 1 sh -c 'touch m'",
        likwid_pin_wrapping_sh: "likwid-pin -c 0 sh -c 'touch m'",
        pkexec_wrapping_sh: "pkexec sh -c 'touch m'",
        cgexec_wrapping_sh: "cgexec -g cpu:bench sh -c 'touch m'",
        dbus_run_session_wrapping_sh: "dbus-run-session sh -c 'touch m'",
        gdb_eval_command_single_dash: "gdb -batch -eval-command 'shell touch m'",
        awk_source_attached: "awk '--source=BEGIN { system(\"touch m\") }'",
    }

    // SPEC R2: every family's inline-code options, behind any wrapper.
    flagged! {
        sh_c: "sh -c 'touch x'",
        sh_by_path: "/bin/sh -c x",
        env_sh_c: "env sh -c x",
        sh_errexit_and_c_clustered: "sh -ec x",
        bash_xtrace_and_c_clustered: "bash -xc x",
        bash_option_with_value_then_c: "bash -o pipefail -c x",
        bash_plus_option_then_c: "bash +o posix -c x",
        bash_init_file_then_c: "bash --init-file /dev/null -c x",
        bash_rcfile_then_c: "bash --rcfile /dev/null -c x",
        zsh_c: "zsh -c x",
        dash_c: "dash -c x",
        ksh_c: "ksh93 -c x",
        mksh_c: "mksh -c x",
        csh_c: "csh -c x",
        tcsh_c: "tcsh -c x",
        fish_command: "fish --command=x",
        fish_c: "fish -c x",
        busybox_sh_c: "busybox sh -c x",
        busybox_ash_c: "busybox ash -c x",
        python_c: "python3 -c 'import os'",
        python_versioned_clustered: "/usr/bin/python3.12 -Bc x",
        pypy_c: "pypy3 -c x",
        python_timeit_statement: "python3 -m timeit 'import os'",
        perl_e: "perl -e 'system 1'",
        perl_capital_e: "perl -E 'say 1'",
        perl_lne: "perl -lne x file",
        perl_versioned: "perl5.36 -e x",
        perl_debugger_module_with_code: "perl '-d:Foo;system(1)' x.pl",
        perl5opt_in_env: "env 'PERL5OPT=-Mstrict;system(1)' perl x.pl",
        ruby_e: "ruby -e x",
        node_eval: "node --eval x",
        node_e: "node -e x",
        node_print: "node -p x",
        node_print_eval_clustered: "node -pe x",
        nodejs_e: "nodejs -e x",
        deno_eval: "deno eval x",
        bun_e: "bun -e x",
        php_r: "php -r x",
        php_begin_code: "php -B x -R y",
        lua_e: "lua -e x",
        luajit_e: "luajit -e x",
        lua_versioned: "lua5.4 -e x",
        rscript_e: "Rscript -e 'system(\"x\")'",
        r_e: "R -e x",
        julia_e: "julia -e x",
        julia_eval: "julia --eval x",
        osascript_e: "osascript -e 'do shell script \"x\"'",
        pwsh_c: "pwsh -c x",
        pwsh_command_prefix: "pwsh -NoProfile -Comm x",
        pwsh_encoded: "pwsh -EncodedCommand eAA=",
        pwsh_e: "pwsh -e eAA=",
        pwsh_after_execution_policy: "pwsh -ExecutionPolicy Bypass -Command x",
        powershell_bare_argument: "powershell.exe 'Remove-Item x'",
        cmd_c: "cmd.exe /C dir",
        cmd_k: "cmd /k dir",
        expect_c: "expect -c 'spawn x'",
        su_c_after_user: "su me -c x",
        runuser_c: "runuser -u me -c x",
        script_c: "script -q -c x /dev/null",
        sg_c: "sg root -c x",
        flock_c_after_file: "flock /tmp/f -c x",
        vim_c: "vim -es -c '!touch m'",
        vim_cmd: "vim --cmd '!touch m'",
        vim_plus: "vim +'!touch m'",
        emacs_eval: "emacs --batch --eval '(shell-command \"x\")'",
        gdb_ex: "gdb -batch -ex 'shell touch m'",
        gdb_eval_command: "gdb --eval-command='shell x' ./prog",
        gdb_x: "gdb -x cmds ./prog",
        lldb_o: "lldb -o 'platform shell x' ./prog",
    }

    // SPEC R2: wrappers, nested and with their own options and values.
    flagged! {
        env_and_friends_nested: "env -i FOO=1 nice -n 5 timeout 3 bash -c x",
        nohup_stdbuf_setsid_sudo: "nohup stdbuf -oL setsid sudo -u me zsh -c x",
        taskset_numactl_chrt_ionice: "taskset -c 0 numactl -C 0 chrt -f 1 ionice -c 3 sh -c x",
        doas_wrapping: "doas -u me sh -c x",
        hyperfine_wrapping_sh: "hyperfine -N 'sh -c x'",
        valgrind_wrapping_python: "valgrind --tool=none python3 -c x",
        ltrace_wrapping_perl: "ltrace -f perl -e x",
        strace_wrapping_sh: "strace -f -o trace.txt sh -c x",
        fakeroot_wrapping_sh: "fakeroot sh -c x",
        xargs_sh: "xargs sh -c x",
        xargs_replace_sh: "xargs -I{} sh -c 'echo {}'",
        windows_python_exe: "'C:\\Python312\\python.exe' -c x",
    }

    // SPEC R2: programs whose own options run a command, one test per spelling.
    flagged! {
        tar_use_compress_program: "tar --use-compress-program='touch m' -cf /dev/null .",
        tar_use_compress_program_abbreviated: "tar --use-compress=x -cf /dev/null .",
        tar_i_attached: "tar -cf /dev/null -Ix .",
        tar_i_in_cluster: "tar -cIf x out.tar .",
        tar_old_style_cluster: "tar cIf x out.tar .",
        tar_to_command: "tar -xf a.tar --to-command='touch m'",
        tar_checkpoint_exec: "tar -cf /dev/null '--checkpoint-action=exec=touch m' .",
        tar_info_script: "tar -cf a.tar -F 'touch m' .",
        tar_rsh_command: "tar --rsh-command=/bin/x -cf h:a.tar .",
        sed_e_command_in_expression: "sed -e '1e touch m' /dev/null",
        sed_e_command_after_address_range: "sed '1,$e date' f",
        sed_e_command_negated: "sed '$!e date' f",
        sed_s_with_e_flag: "sed 's/.*/touch m/e' f",
        sed_s_with_e_flag_other_delimiter: "sed -n 's|x|y|ge' f",
        sed_expression_long: "sed '--expression=1e x' f",
        sed_attached_expression: "sed -ne '1e x' f",
        strace_output_attached: "strace '-o|touch m' /bin/true",
        strace_output_in_cluster: "strace -fo '!touch m' /bin/true",
        strace_output_long: "strace '--output=|touch m' /bin/true",
        find_exec: "find . -exec rm {} ;",
        find_execdir: "find . -name a -execdir x {} +",
        find_ok: "find . -ok rm {} ;",
        fd_exec: "fd -e c -x rm",
        awk_system: "/usr/bin/awk 'BEGIN{system(\"x\")}'",
        awk_pipe: "gawk -v a=1 '{ print | \"sh\" }' f",
        awk_source_separate: "gawk --source 'BEGIN { system(\"x\") }'",
        awk_e: "gawk -e 'BEGIN { system(\"x\") }'",
        env_split_string: "env -S 'sh -c x'",
        env_split_string_clustered: "env -iS 'sh -c x'",
        env_split_string_verbose: "env -vS 'sh -c x'",
        env_split_string_long: "env '--split-string=python3 -c x'",
        sudo_shell: "sudo -s ls",
        sudo_login_clustered: "sudo -Ei ls",
        watch_hands_to_shell: "watch ls",
        hyperfine_hands_to_shell: "hyperfine 'sleep 0.1'",
        parallel_hands_to_shell: "parallel echo ::: a",
        ssh_remote_command: "ssh host 'touch m'",
        ssh_remote_command_after_options: "ssh -p 22 -i key host touch m",
        ssh_proxy_command: "ssh -o 'ProxyCommand=touch m' host",
        scp_proxy_command: "scp -o 'ProxyCommand=touch m' x:y z",
        rsync_rsh_with_sh: "rsync -e 'sh -c x' a b:",
        make_eval: "make '--eval=$(shell touch m)' -f /dev/null",
        git_config_alias: "git -c 'alias.x=!touch m' x",
        git_config_env: "git --config-env=core.pager=X log",
    }

    // SPEC R2: ordinary programs, script files and look-alike options are not
    // flagged: errexit is not -c, a script's own -c is the script's.
    not_flagged! {
        a_compiled_program: "./matmul 512",
        bash_errexit_with_a_script: "bash -e run.sh",
        python_script_with_its_own_c: "python3 bench.py -c cfg.yaml",
        python_script_then_c: "python3 script.py -c",
        python_timeit_without_a_statement: "python3 -m timeit",
        python_module_with_c: "python3 -m mymod -c x",
        sh_with_a_script: "sh script.sh",
        bash_script_with_c_argument: "bash script.sh -c x",
        node_script_with_e: "node bench.js -e x",
        ruby_script_with_e: "ruby bench.rb -e x",
        perl_include_dir: "perl -Ilib script.pl",
        perl_plain_module: "perl -Mstrict script.pl",
        perl_module_with_arguments: "perl -MList::Util=sum,max script.pl",
        perl_no_module: "perl -M-warnings script.pl",
        grep_e: "grep -e pattern file",
        awk_arithmetic: "awk '{ s += $1 } END { print s }' f",
        awk_or: "awk '$1 > 1 || $2 > 2' f",
        awk_program_file: "awk -f prog.awk f",
        sed_substitute: "sed 's/a/b/g' f",
        sed_substitute_of_the_letter_e: "sed -e 's/e/E/' f",
        sed_print: "sed -n '/pattern/p' f",
        sed_in_place_suffix_e: "sed -ie 's/a/b/' f",
        sed_sandboxed: "sed --sandbox '1e x' f",
        tar_create: "tar -cf out.tar dir",
        tar_old_style: "tar xzf a.tar.gz",
        strace_to_a_file: "strace -o trace.txt ./prog",
        find_by_name: "find . -name '*.c'",
        watch_without_a_shell: "watch -x ./prog",
        hyperfine_without_a_shell: "hyperfine -N ./prog",
        ssh_interactive: "ssh -p 22 host",
        git_log: "git log --oneline",
        vim_line_number: "vim +42 file",
        nice_program: "nice -n 5 ./matmul 512",
        timeout_program: "timeout 3 ./bench --case c",
        taskset_program: "taskset -c 0 ./bench",
        env_program: "env FOO=1 ./bench",
        vernier_itself: "vernier bench --kernel seq",
        nothing: "",
    }

    // SPEC R2: the finding names the word and the option, and says why.
    #[test]
    fn the_finding_names_the_word_and_its_option() {
        assert_eq!(
            inline_code(&argv("env sh -c x")).as_deref(),
            Some("runs code written in their file (env … sh -c): sh runs the text given with -c as shell commands")
        );
        assert_eq!(
            inline_code(&argv("tar -cf /dev/null -I 'touch m;cat' .")).as_deref(),
            Some("runs code written in their file (tar -I): tar runs the program given with -I to compress")
        );
    }

    // SPEC R2, N10: a hostile word in the finding is shown inert.
    #[test]
    fn the_finding_is_inert() {
        let finding = inline_code(&argv("'/bin/s\u{1b}[2Jh' -c x"));
        assert_eq!(finding, None, "not a shell's name");
        let finding = inline_code(&["/tmp/\u{202e}x/sh".to_owned(), "-c".to_owned(), "x".to_owned()]);
        assert_eq!(
            finding.as_deref(),
            Some("runs code written in their file (sh -c): sh runs the text given with -c as shell commands")
        );
        for line in ["vim '+!touch \u{1b}[2J'", "cmd '/c \u{1b}[2J'", "sh '-c\u{202e}'", "env -S 'sh -c\u{1b}'"] {
            let finding = inline_code(&argv(line)).expect("flagged");
            assert!(!finding.contains(['\u{1b}', '\u{202e}']), "{finding}");
        }
    }

    // SPEC R2: a vector too long to read word by word is flagged, not read.
    #[test]
    fn a_huge_vector_is_flagged_unread() {
        let words = vec!["x".to_owned(); MOST_WORDS + 1];
        assert!(inline_code(&words).is_some_and(|f| f.contains("more than the 1024")));
        // The costliest family to read, at the limit: still read, not flagged.
        let words = vec!["gdb".to_owned(); MOST_WORDS];
        assert_eq!(inline_code(&words), None);
    }
}
