//! The second line of defence when reproducing (SPEC R2): does a command
//! from someone else's file visibly run code written inline in that file —
//! a shell's `-c`, an interpreter's `-e`, `find -exec`, awk's `system`? Such
//! a row needs a consent of its own on top of the confirmation.
//!
//! This reads the argument vector only. It is a check for visible patterns,
//! not a sandbox: a compiled program or a script file may do anything, and
//! only the confirmation of the exact argv protects against that. Where the
//! arguments are ambiguous the check errs towards flagging, since a false
//! flag costs one extra consent and a miss costs nothing less than the run.

/// A program that takes code on its command line: the option letters that
/// introduce code, the long options that do, and the option letters whose
/// value follows (attached, or as the next word).
struct Interpreter {
    names: &'static [&'static str],
    code: &'static str,
    long: &'static [&'static str],
    takes_value: &'static str,
    /// Options may follow the operands (`su user -c …`).
    options_anywhere: bool,
}

impl Interpreter {
    /// One whose option letters take no value.
    const fn no_values(
        names: &'static [&'static str],
        code: &'static str,
        long: &'static [&'static str],
        options_anywhere: bool,
    ) -> Self {
        Self { names, code, long, takes_value: "", options_anywhere }
    }
}

const INTERPRETERS: &[Interpreter] = &[
    Interpreter {
        names: &["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "rbash", "csh", "tcsh", "expect"],
        code: "c",
        long: &[],
        takes_value: "oO",
        options_anywhere: false,
    },
    Interpreter {
        names: &["fish"],
        code: "cC",
        long: &["--command", "--init-command"],
        takes_value: "",
        options_anywhere: false,
    },
    Interpreter::no_values(&["su", "script"], "c", &["--command"], true),
    Interpreter { names: &["python", "pypy"], code: "c", long: &[], takes_value: "WXm", options_anywhere: false },
    // `-l` and `-0` take only digits, so `-lne` still reaches its `e`.
    Interpreter { names: &["perl"], code: "eE", long: &[], takes_value: "IMmCxdDi", options_anywhere: false },
    Interpreter { names: &["ruby", "jruby"], code: "e", long: &[], takes_value: "IrCEFx", options_anywhere: false },
    Interpreter {
        names: &["node", "nodejs", "bun", "deno"],
        code: "ep",
        long: &["--eval", "--print", "eval"],
        takes_value: "r",
        options_anywhere: false,
    },
    Interpreter { names: &["php"], code: "rRBE", long: &[], takes_value: "cdzF", options_anywhere: false },
    Interpreter { names: &["lua", "luajit"], code: "e", long: &[], takes_value: "l", options_anywhere: false },
    Interpreter::no_values(&["julia"], "eE", &["--eval", "--print"], false),
    Interpreter::no_values(&["rscript", "r", "osascript"], "e", &[], false),
    // Programs that run a shell command given with `-c` among their options.
    Interpreter::no_values(&["flock", "sg"], "c", &["--command"], true),
    // Editors and debuggers run commands given on their command line.
    Interpreter::no_values(&["vim", "vi", "nvim", "ex", "view", "gvim"], "cS", &["--cmd"], true),
    Interpreter::no_values(
        &["gdb", "lldb"],
        "x",
        &["-ex", "-iex", "--eval-command", "--init-eval-command", "-o", "--one-line"],
        true,
    ),
    // PowerShell's options are whole words, never clusters.
    Interpreter::no_values(
        &["pwsh", "powershell"],
        "",
        &["-c", "-command", "-e", "-ec", "-encodedcommand", "--command"],
        true,
    ),
];

/// Programs that run the rest of their arguments as another command.
const WRAPPERS: &[&str] = &[
    "env",
    "xargs",
    "nice",
    "timeout",
    "nohup",
    "stdbuf",
    "setsid",
    "sudo",
    "doas",
    "chrt",
    "taskset",
    "ionice",
    "numactl",
    "time",
    "command",
    "exec",
    "flock",
    "unbuffer",
    "strace",
    "ltrace",
    "valgrind",
    "perf",
    "prlimit",
    "cpulimit",
    "chroot",
    "unshare",
    "nsenter",
    "runuser",
    "systemd-run",
    "firejail",
    "caffeinate",
    "busybox",
    "setarch",
    "linux",
    "tini",
    "dumb-init",
    "catchsegv",
    "sg",
    "newgrp",
    "fakeroot",
    "proot",
    "bwrap",
];

/// Programs that hand their command to a shell as one string (`ssh`: the
/// remote one).
const SHELL_RUNNERS: &[&str] = &["watch", "hyperfine", "parallel", "ssh"];

/// Why `argv` runs code written in the file it came from ("runs code
/// written in their file: env … sh -c"), or `None` when it visibly does not.
/// A wrapper (`env`, `xargs`, `nice`, `timeout`, `sudo`, …) counts when any
/// command after it does, whatever its options and `VAR=value` words.
pub fn inline_code(argv: &[String]) -> Option<String> {
    found(argv).map(|what| format!("runs code written in their file ({what})"))
}

/// The pattern found in `argv`, or in any command a wrapper at its head
/// runs. Every later word is tried as the wrapped command's start, so no
/// wrapper's option syntax needs to be known, and wrappers nest for free.
fn found(argv: &[String]) -> Option<String> {
    let head = program(argv.first()?);
    let wrapped = || {
        (1..argv.len()).find_map(|i| {
            let inner = direct(&argv[i..]).or_else(|| split_string(&argv[i..]))?;
            Some(format!("{head} … {inner}"))
        })
    };
    direct(argv).or_else(|| if WRAPPERS.contains(&head.as_str()) { wrapped() } else { None })
}

/// `env -S 'sh -c x'` (and `-iS`, `--split-string=`): a command line in
/// one word.
fn split_string(words: &[String]) -> Option<String> {
    let first = words.first()?;
    let value = match first.as_str() {
        "--split-string" => words.get(1)?.clone(),
        w if w.starts_with("--split-string=") => w.trim_start_matches("--split-string=").to_owned(),
        // `S` anywhere in a cluster of letters: its value is the rest of
        // the word, or the next word.
        w if w.starts_with('-') && !w.starts_with("--") && w.contains('S') => {
            let rest = &w[w.find('S')? + 1..];
            if rest.is_empty() { words.get(1)?.clone() } else { rest.to_owned() }
        }
        _ => return None,
    };
    found(&shlex::split(&value)?)
}

/// Options of common tools whose value is a command they run: ssh/scp's
/// `ProxyCommand`, tar's checkpoint actions and `--to-command`, make's
/// `--eval`, git's `-c` (aliases and pagers run commands).
fn command_in_options(name: &str, args: &[String]) -> Option<String> {
    let lower = |a: &String| a.to_ascii_lowercase();
    let hit = match name {
        _ if args.iter().any(|a| lower(a).contains("proxycommand") || lower(a).contains("localcommand")) => {
            "an ssh option that runs a command"
        }
        "tar" | "bsdtar"
            if args.iter().any(|a| {
                let a = lower(a);
                a.contains("--checkpoint-action") || a.contains("--to-command") || a.contains("--use-compress-program")
            }) =>
        {
            "tar running a command"
        }
        "make" | "gmake" if args.iter().any(|a| a.starts_with("--eval")) => "make --eval",
        "git" if args.iter().any(|a| a == "-c" || a.starts_with("--config-env")) => {
            "git -c (configuration can run commands)"
        }
        n if ["vim", "vi", "nvim", "ex", "view", "gvim"].contains(&n)
            && args.iter().any(|a| a.len() > 1 && a.starts_with('+')) =>
        {
            "an editor's +command"
        }
        _ => return None,
    };
    Some(hit.to_owned())
}

/// The pattern when `argv`'s own program runs code from its arguments.
fn direct(argv: &[String]) -> Option<String> {
    let name = program(argv.first()?);
    let args = &argv[1..];
    if SHELL_RUNNERS.contains(&name.as_str()) && !args.is_empty() {
        return Some(format!("{name} hands its command to a shell"));
    }
    if name == "cmd" {
        return args
            .iter()
            .find(|a| a.eq_ignore_ascii_case("/c") || a.eq_ignore_ascii_case("/k"))
            .map(|a| format!("cmd {a}"));
    }
    if name == "find" {
        return args
            .iter()
            .find(|a| ["-exec", "-execdir", "-ok", "-okdir"].contains(&a.as_str()))
            .map(|a| format!("find {a}"));
    }
    if name.ends_with("awk") {
        return awk(&name, args);
    }
    if let Some(hit) = command_in_options(&name, args) {
        return Some(hit);
    }
    if matches!(name.as_str(), "sudo" | "doas")
        && args.iter().any(|a| matches!(a.as_str(), "-s" | "-i" | "--shell" | "--login"))
    {
        return Some(format!("{name} -s runs its command through a shell"));
    }
    let interpreter = INTERPRETERS.iter().find(|i| i.names.contains(&name.as_str()))?;
    code_option(interpreter, args).map(|option| format!("{name} {option}"))
}

/// The option word that introduces code, scanning options as getopt does:
/// clustered letters, a value attached or in the next word, `--` ending
/// them, and (unless options may follow) the first operand ending them too.
fn code_option(i: &Interpreter, args: &[String]) -> Option<String> {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word == "--" {
            return None;
        }
        if i.long.iter().any(|l| word.eq_ignore_ascii_case(l) || word.starts_with(&format!("{l}="))) {
            return Some(word.clone());
        }
        let letters = match word.strip_prefix('-').or_else(|| word.strip_prefix('+')) {
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
            _ if i.options_anywhere => continue,
            _ => return None,
        };
        for (k, letter) in letters.char_indices() {
            if i.code.contains(letter) {
                return Some(word.clone());
            }
            if i.takes_value.contains(letter) {
                // `-m module` runs a module by name: what follows is not code
                // here — except modules that run code given to them.
                if letter == 'm' && i.names.contains(&"python") {
                    let module =
                        if k + 1 < letters.len() { Some(&letters[k + 1..]) } else { words.next().map(String::as_str) };
                    let runs_code = ["timeit", "cprofile", "profile", "trace", "pdb"];
                    return module
                        .filter(|m| runs_code.contains(&m.to_ascii_lowercase().as_str()))
                        .filter(|_| !words.as_slice().is_empty())
                        .map(|m| format!("-m {m}"));
                }
                // A value in the next word; an option there is read as
                // one, so an optional value never hides a `-c`.
                if k + letter.len_utf8() == letters.len()
                    && words.as_slice().first().is_some_and(|w| !w.starts_with('-'))
                {
                    words.next();
                }
                break;
            }
        }
    }
    None
}

/// awk runs shell commands through `system(…)` and `|` pipes; its program is
/// the first operand, or a `-e`/`--source` value (`-f` names a file).
fn awk(name: &str, args: &[String]) -> Option<String> {
    let mut programs = Vec::new();
    let mut from_file = false;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        match word.as_str() {
            "-f" | "--file" => {
                from_file = true;
                words.next();
            }
            "-e" | "--source" => programs.extend(words.next()),
            "-v" | "-F" | "--assign" | "--field-separator" => {
                words.next();
            }
            "--" => {
                programs.extend(words.next().filter(|_| !from_file));
                break;
            }
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
        .map(|_| format!("{name} calling system or a pipe"))
}

/// The program's name as a family: without its directory, a `.exe`, or a
/// version (`python3.12` is python, `perl5.36` is perl), in lower case.
fn program(path: &str) -> String {
    let base = path.rsplit(['/', '\\']).next().unwrap_or(path).to_ascii_lowercase();
    let base = base.strip_suffix(".exe").unwrap_or(&base);
    let trimmed = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-');
    if trimmed.is_empty() { base.to_owned() } else { trimmed.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &str) -> Vec<String> {
        shlex::split(line).expect("test argv")
    }

    // SPEC R2: commands that run code written in the file are flagged,
    // through any wrapper, whatever the option spelling.
    #[test]
    fn inline_code_is_flagged() {
        for line in [
            "sh -c 'touch x'",
            "/bin/sh -c x",
            "env sh -c x",
            "sh -ec x",
            "bash -xc x",
            "bash -o pipefail -c x",
            "python3 -c 'import os'",
            "/usr/bin/python3.12 -Bc x",
            "perl -e 'system 1'",
            "perl -lne x file",
            "ruby -e x",
            "node --eval x",
            "php -r x",
            "lua -e x",
            "xargs sh -c x",
            "find . -exec rm {} ;",
            "find . -name a -execdir x {} +",
            "env -i FOO=1 nice -n 5 timeout 3 bash -c x",
            "nohup stdbuf -oL setsid sudo -u me zsh -c x",
            "env -S 'sh -c x'",
            "/usr/bin/awk 'BEGIN{system(\"x\")}'",
            "gawk -v a=1 '{ print | \"sh\" }' f",
            "su me -c x",
            "fish --command=x",
            "watch ls",
            "cmd.exe /C dir",
            // Found by an attacker's review: long options with a value,
            // clustered -S, wrappers and tools whose options run commands.
            "bash --init-file /dev/null -c x",
            "bash --rcfile /dev/null -c x",
            "env -iS 'sh -c x'",
            "env -vS 'sh -c x'",
            "fakeroot sh -c x",
            "sg root -c x",
            "flock /tmp/f -c x",
            "scp -o 'ProxyCommand=touch m' x:y z",
            "make '--eval=$(shell touch m)' -f /dev/null",
            "tar -cf /dev/null '--checkpoint-action=exec=touch m' .",
            "vim -es -c '!touch m'",
            "vim +'!touch m'",
            "gdb -batch -ex 'shell touch m'",
            "git -c 'alias.x=!touch m' x",
            "python3 -m timeit 'import os'",
        ] {
            assert!(inline_code(&argv(line)).is_some(), "{line}");
        }
        assert_eq!(inline_code(&argv("env sh -c x")).as_deref(), Some("runs code written in their file (env … sh -c)"));
    }

    // SPEC R2: ordinary programs, script files and look-alike options are not.
    #[test]
    fn programs_and_script_files_are_not_flagged() {
        for line in [
            "./matmul 512",
            "python3 script.py -c",
            "python3 -m timeit",
            "sh script.sh",
            "bash script.sh -c x",
            "grep -e pattern file",
            "awk '{ s += $1 } END { print s }' f",
            "awk -f prog.awk f",
            "nice -n 5 ./matmul 512",
            "timeout 3 ./bench --case c",
            "perl -Ilib script.pl",
            "vernier bench --kernel seq",
            "",
        ] {
            assert_eq!(inline_code(&argv(line)), None, "{line}");
        }
    }
}
