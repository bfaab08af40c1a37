//! SPEC N13, R2 as a user meets it (issue 45, findings 1–3): a command
//! taken from someone's file runs on `--yes` alone only when it is shown to
//! be theirs — their program or script, matched by the SHA-256 their row
//! keeps; every other program with their arguments needs
//! `--allow-inline-code`, whatever spelling it hides behind. Nothing named
//! by their files runs before the yes, not even a compiler's `--version`;
//! a foreign rerun writes only inside its scratch folder (Landlock).

use std::path::Path;
use std::process::{Command, Output};

use crate::common;
use common::{foreign_workbook, json, ok, text, vernier};

/// `vernier ARGS` started in `dir`, with `path` prepended to `PATH` when given.
fn vernier_at(dir: &Path, path: Option<&Path>, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_vernier"));
    if let Some(first) = path {
        let rest = std::env::var_os("PATH").unwrap_or_default();
        let joined = std::env::join_paths(std::iter::once(first.to_path_buf()).chain(std::env::split_paths(&rest)))
            .expect("PATH");
        command.env("PATH", joined);
    }
    command.current_dir(dir).args(args).output().expect("run vernier")
}

/// An executable shell script at `path`.
#[cfg(unix)]
fn script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).expect("script");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// Runs recorded in the notebook at `dir`.
fn run_count(dir: &str) -> usize {
    json(&ok(vernier(&["show", dir, "--json"])))["runs"].as_array().map_or(0, Vec::len)
}

/// The spellings (finding 1) and ten more, each a command that
/// runs code written in the file when the program exists; `{m}` is the
/// marker it would make.
const SPELLINGS: [&str; 26] = [
    // Issue 45, finding 1.
    "sed '--expr=1e touch {m}' /dev/null",
    "env \"--split-s=sh -c 'touch {m}'\"",
    "git -C /tmp -c 'alias.x=!touch {m}' x",
    "mawk -W interactive 'BEGIN{system(\"touch {m}\")}'",
    "tar --checkpoint=1 '--checkpoint-=exec=touch {m}' -cf /dev/null /dev/null",
    "make -f /dev/null 'X:=$(shell touch {m})'",
    "sqlite3 :memory: '.shell touch {m}'",
    "zip -T -TT 'touch {m}' /tmp/none.zip",
    "tmux new-session -d 'touch {m}'",
    "gcc -wrapper 'sh,-c,touch {m}' -x c /dev/null",
    "node '--import=data:text/javascript,require(\"fs\").writeFileSync(\"{m}\",\"\")'",
    "npx -c 'touch {m}'",
    "ipython -c 'open(\"{m}\", \"w\")'",
    "python3 -m IPython -c 'open(\"{m}\", \"w\")'",
    "env 'PERL5DB=system(\"touch {m}\")' perl -d -e 1",
    "env \"GIT_CONFIG_PARAMETERS='alias.y=!touch {m}'\" git y",
    // Ten more.
    "awk 'BEGIN{system(\"touch {m}\")}'",
    "perl -e 'system(q(touch {m}))'",
    "find / -maxdepth 0 -exec touch {m} ;",
    "timeout 5 sh -c 'touch {m}'",
    "nice -n 1 python3 -c 'open(\"{m}\", \"w\")'",
    "env -S \"sh -c 'touch {m}'\"",
    "script -qc 'touch {m}' /dev/null",
    "strace -o '|touch {m}' true",
    "busybox sh -c 'touch {m}'",
    "/usr/bin/env bash -c 'touch {m}'",
];

// SPEC N13, R2 (issue 45, finding 1): each spelling, taken from a
// classmate's workbook, runs nothing with --yes alone — the refusal says
// their program can run code they wrote — and the decision does not come
// from the table of spellings. Vernier's own `bench --shell` is refused as
// no kernel it knows.
#[test]
fn no_spelling_runs_on_yes_alone() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mine = tmp.path().join("mine").display().to_string();
    ok(vernier(&["new", &mine]));
    let marker = tmp.path().join("M");
    let m = marker.display().to_string();
    let commands: Vec<String> =
        SPELLINGS.iter().map(|s| s.replace("{m}", &m)).chain([format!("vernier bench --shell 'touch {m}'")]).collect();
    let numbers: Vec<String> = (1..=commands.len()).map(|n| n.to_string()).collect();
    let rows: Vec<[&str; 10]> = commands
        .iter()
        .zip(&numbers)
        .map(|(c, n)| [n.as_str(), "x", c.as_str(), "3 + 5", "0.002 s", "IQR 0.0002 s", "", "", "", "MEASURED"])
        .collect();
    let book = tmp.path().join("measurements.xlsx");
    foreign_workbook(&book, &rows);
    let book = book.display().to_string();
    for (command, n) in commands.iter().zip(&numbers) {
        let o = vernier_at(tmp.path(), None, &["reproduce", &book, "--row", n, "--notebook", &mine, "--yes"]);
        let said = text(&o);
        assert_eq!(o.status.code(), Some(2), "{command}: {said}");
        let why = said.contains("can run code") || said.contains("runs code written in their file");
        assert!(why || said.contains("is not a kernel Vernier knows how to rerun"), "{command}: {said}");
        assert!(!marker.exists(), "{command} ran on --yes alone");
    }
    assert_eq!(run_count(&mine), 0);
}

// SPEC N13, R2: a program no table knows, taken from their file, needs the
// second consent too: `./not-in-any-table --anything`, planted beside the
// folder it runs in, is refused on --yes alone with the reason.
#[cfg(unix)]
#[test]
fn an_unknown_program_needs_the_second_consent() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mine = tmp.path().join("mine").display().to_string();
    ok(vernier(&["new", &mine]));
    let marker = tmp.path().join("M");
    script(&tmp.path().join("not-in-any-table"), &format!("touch {}", marker.display()));
    let book = tmp.path().join("measurements.xlsx");
    let row = ["1", "x", "./not-in-any-table --anything", "3 + 5", "0.002 s", "IQR 0.0002 s", "", "", "", "MEASURED"];
    foreign_workbook(&book, &[row]);
    let book = book.display().to_string();
    let o = vernier_at(tmp.path(), None, &["reproduce", &book, "--row", "1", "--notebook", &mine, "--yes"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let said = text(&o);
    assert!(
        said.contains("runs not-in-any-table with their arguments: such a program can run code they wrote"),
        "{said}"
    );
    assert!(!marker.exists(), "their program ran on --yes alone");
}

// SPEC N13, R2, R3: their own program — here, under the folder it runs in,
// with the SHA-256 their row keeps — reruns on --yes alone, and the row
// says how its writes were confined; once the file is not theirs any
// more, --yes alone runs nothing.
#[cfg(unix)]
#[test]
fn their_verified_program_reruns_on_yes_alone() {
    let tmp = tempfile::tempdir().expect("tmp");
    let [theirs, mine] = ["theirs", "mine"].map(|n| tmp.path().join(n).display().to_string());
    ok(vernier(&["new", &theirs]));
    ok(vernier(&["new", &mine]));
    script(&tmp.path().join("prog"), "exit 0");
    ok(vernier_at(tmp.path(), None, &["bench", "-n", "3", "--warmup", "0", "--notebook", &theirs, "--", "./prog"]));
    let plan = text(&vernier_at(tmp.path(), None, &["reproduce", &theirs, "--row", "1", "--notebook", &mine]));
    assert!(plan.contains("then add --yes to run it"), "{plan}");
    assert!(!plan.contains("WARNING"), "{plan}");
    ok(vernier_at(tmp.path(), None, &["reproduce", &theirs, "--row", "1", "--notebook", &mine, "--yes"]));
    let row = json(&ok(vernier(&["show", &mine, "--json"])))["runs"][0]["conditions"].to_string();
    assert!(row.contains("\"confinement\""), "{row}");
    assert!(row.contains("(Landlock)") || row.contains("not confined"), "{row}");

    script(&tmp.path().join("prog"), "exit 0 # another program");
    let o = vernier_at(tmp.path(), None, &["reproduce", &theirs, "--row", "1", "--notebook", &mine, "--yes"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("runs prog with their arguments"), "{}", text(&o));
    assert_eq!(run_count(&mine), 1);
}

// SPEC N13, R5 (issue 45, finding 2): nothing named or chosen by their
// files runs before the yes — a `rustc` that is first on PATH (as a
// planted toolchain would be) is not asked its version by the plan of a
// rebuild; the plan says the compiler here is asked after you agree.
#[cfg(unix)]
#[test]
fn the_rebuild_plan_probes_no_compiler() {
    let tmp = tempfile::tempdir().expect("tmp");
    let [theirs, mine] = ["theirs", "mine"].map(|n| tmp.path().join(n).display().to_string());
    ok(vernier(&["new", &theirs]));
    ok(vernier(&["new", &mine]));
    // Their row, built by a recipe (the fake compiler copies its source).
    let project = tmp.path().join("project");
    let bin = tmp.path().join("bin");
    std::fs::create_dir_all(&project).expect("project");
    std::fs::create_dir_all(&bin).expect("bin");
    std::fs::write(project.join("m.rs"), "#!/bin/sh\nexit 0\n").expect("source");
    let marker = tmp.path().join("PROBED");
    script(
        &bin.join("rustc"),
        &format!(
            "if [ \"$1\" = --version ]; then touch {}; echo 'rustc 0.0.0 (planted)'; exit 0; fi\n\
             cp \"$1\" \"$3\" && chmod +x \"$3\"",
            marker.display()
        ),
    );
    let bench = ["bench", "-n", "3", "--warmup", "0", "--notebook", &theirs, "--build-cmd", "rustc m.rs -o mm"];
    ok(vernier_at(&project, Some(&bin), &[&bench[..], &["--", "./mm"]].concat()));
    std::fs::remove_file(&marker).expect("their own bench asked its compiler");
    let o = vernier_at(tmp.path(), Some(&bin), &["reproduce", &theirs, "--row", "1", "--notebook", &mine, "--rebuild"]);
    let plan = text(&o);
    assert_eq!(o.status.code(), Some(1), "{plan}");
    assert!(plan.contains("compiler here: asked after you agree"), "{plan}");
    assert!(!marker.exists(), "the plan ran their PATH's rustc --version");
}

// SPEC R5 (issue 45, finding 3): a recipe that writes its program outside
// the scratch folder is refused before the consent; a rebuild's scratch
// folder is the one its run uses, and it is gone after the run.
#[cfg(unix)]
#[test]
fn a_rebuild_is_confined_to_its_scratch_folder() {
    let tmp = tempfile::tempdir().expect("tmp");
    let [theirs, mine] = ["theirs", "mine"].map(|n| tmp.path().join(n).display().to_string());
    ok(vernier(&["new", &theirs]));
    ok(vernier(&["new", &mine]));
    let project = tmp.path().join("project");
    std::fs::create_dir_all(&project).expect("project");
    std::fs::write(project.join("m.rs"), "#!/bin/sh\nexit 0\n").expect("source");
    let bin = tmp.path().join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    script(
        &bin.join("rustc"),
        "[ \"$1\" = --version ] && { echo 'rustc 0.0.0'; exit 0; }\ncp \"$1\" \"$3\" && chmod +x \"$3\"",
    );
    let bench =
        ["bench", "-n", "3", "--warmup", "0", "--notebook", &theirs, "--build-cmd", "rustc m.rs -o mm", "--", "./mm"];
    ok(vernier_at(&project, Some(&bin), &bench));
    let scratch_root = tmp.path().join("tmp");
    std::fs::create_dir_all(&scratch_root).expect("tmp");
    let run = |args: &[&str]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_vernier"));
        let path = std::env::join_paths(
            std::iter::once(bin.clone()).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
        )
        .expect("PATH");
        command.env("PATH", path).env("TMPDIR", &scratch_root).current_dir(tmp.path()).args(args).output().expect("run")
    };
    let o = run(&["reproduce", &theirs, "--row", "1", "--notebook", &mine, "--rebuild", "--yes"]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(0), "{said}");
    let written = said.lines().find_map(|l| l.strip_prefix("their sources are written in ")).expect("where");
    assert!(said.contains(&format!("in {written}, just before the warm-up")), "the build ran there: {said}");
    assert!(said.contains(&format!("the scratch folder {written} is removed")), "{said}");
    assert!(!Path::new(written).exists(), "{written} is left behind");
    assert_eq!(std::fs::read_dir(&scratch_root).expect("tmp").count(), 0, "no scratch folder left");

    // Their recipe, edited to write its program elsewhere: refused before
    // anything is built or run.
    // Their row, folded from the journal into notebook.ron, as a hostile
    // folder would hand it over: one file to edit.
    let folder = Path::new(&theirs);
    let nb = vernier_engine::notebook::store::load(folder).expect("their notebook");
    vernier_engine::notebook::store::replace(folder, &nb).expect("folded");
    let ron = folder.join("notebook.ron");
    let text_before = std::fs::read_to_string(&ron).expect("ron");
    let elsewhere = tmp.path().join("elsewhere");
    // The value after the recipe's `-o` (its program follows).
    let at = text_before.find("\"-o\"").expect("the recipe's -o");
    let mm = at + text_before[at..].find("\"mm\"").expect("its value");
    let edited = format!("{}\"{}\"{}", &text_before[..mm], elsewhere.display(), &text_before[mm + 4..]);
    assert!(edited != text_before, "the recipe's -o was edited");
    std::fs::write(&ron, edited).expect("their edit");
    let o = run(&["reproduce", &theirs, "--row", "1", "--notebook", &mine, "--rebuild", "--yes"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("outside the scratch folder it runs in"), "{}", text(&o));
    assert!(!elsewhere.exists());
}
