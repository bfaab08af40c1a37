//! A build recipe (SPEC N15) and a rebuild from the log alone (SPEC R5),
//! run as two students would: Alice benchmarks a C++ program Vernier builds
//! in her project folder; Bob, given only her notebook folder, rebuilds it
//! in a scratch folder and reruns it. Then the hostile cases, each refused
//! or bounded by name with nothing half-written into `raw/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::common;
use common::{copy_tree, json, ok, text};

const PROGRAM: &str = "#include <cstdio>\n#include <cstdlib>\nint main(int argc, char** argv) {\n  long n = argc > \
                       1 ? std::atol(argv[1]) : 10;\n  double s = 0;\n  for (long i = 0; i < n * 1000; ++i) s += \
                       i * 0.5;\n  std::printf(\"%f\\n\", s);\n  return 0;\n}\n";

/// The binary run in `dir` (the project's folder), with `TMPDIR` set to
/// `tmp`, so a scratch folder it makes is seen by the test.
fn vernier_in(dir: &Path, tmp: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vernier"))
        .args(args)
        .current_dir(dir)
        .env("TMPDIR", tmp)
        // Every change folded into notebook.ron, which the tests edit by hand.
        .env("VERNIER_COMPACT_AT", "1")
        .output()
        .expect("run vernier")
}

fn sha256(path: &Path) -> String {
    format!("{:x}", Sha256::digest(std::fs::read(path).expect("read")))
}

/// Whether g++ is here: the recipe's test program is C++ (the course's).
fn have_gxx() -> bool {
    let found = Command::new("g++").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("g++ is not installed here: the recipe tests need a C++ compiler and are skipped");
    }
    found
}

/// A temporary area: `project/` with the C++ source, `alice` and `bob`
/// notebooks beside it, and `tmp/` for scratch folders.
struct Lab {
    _root: tempfile::TempDir,
    root: PathBuf,
    project: PathBuf,
    tmp: PathBuf,
}

impl Lab {
    fn new() -> Self {
        let root = tempfile::tempdir().expect("tempdir");
        let path = root.path().canonicalize().expect("canonical");
        let project = path.join("project");
        let tmp = path.join("tmp");
        std::fs::create_dir_all(&project).expect("project");
        std::fs::create_dir_all(&tmp).expect("tmp");
        std::fs::write(project.join("matmul.cpp"), PROGRAM).expect("source");
        for nb in ["alice", "bob"] {
            ok(vernier_in(&path, &tmp, &["new", nb]));
        }
        Self { root: path.clone(), project, tmp, _root: root }
    }

    fn nb(&self, name: &str) -> String {
        self.root.join(name).display().to_string()
    }

    /// `bench --build-cmd RECIPE [extra…] --notebook alice -- ./mm 10`, in the project.
    fn bench(&self, recipe: &str, extra: &[&str], program: &str) -> Output {
        let alice = self.nb("alice");
        let mut args = vec!["bench", "-n", "3", "--warmup", "0", "--build-cmd", recipe];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--notebook", &alice, "--", program, "10"]);
        vernier_in(&self.project, &self.tmp, &args)
    }

    fn runs(&self, name: &str) -> Vec<Value> {
        let shown = ok(vernier_in(&self.root, &self.tmp, &["show", &self.nb(name), "--json"]));
        json(&shown)["runs"].as_array().cloned().unwrap_or_default()
    }

    /// The files of `name`'s raw/ that are kept sources.
    fn kept(&self, name: &str) -> Vec<String> {
        let raw = self.root.join(name).join("raw");
        let Ok(entries) = std::fs::read_dir(raw) else { return Vec::new() };
        entries
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("source-"))
            .collect()
    }

    fn scratch_folders(&self) -> usize {
        std::fs::read_dir(&self.tmp).expect("tmp").count()
    }
}

// SPEC N15, R5: the recipe, the compiler's version, the sources' SHA-256
// and copies and the program's SHA-256 are recorded; the notebook folder
// alone, copied elsewhere with the project deleted, rebuilds the same
// program in a scratch folder, reruns it, and records it in Bob's notebook
// with the recipe.
#[test]
fn a_recipe_is_recorded_and_rebuilt_from_the_notebook_alone() {
    if !have_gxx() {
        return;
    }
    let lab = Lab::new();
    let out = ok(lab.bench("g++ -O2 -std=c++17 matmul.cpp -o mm", &[], "./mm"));
    assert!(text(&out).contains("just before the warm-up"), "{}", text(&out));
    let runs = lab.runs("alice");
    let recipe = &runs[0]["recipe"];
    assert_eq!(recipe["argv"], serde_json::json!(["g++", "-O2", "-std=c++17", "matmul.cpp", "-o", "mm"]));
    let compiler = recipe["compiler"].as_str().expect("compiler");
    let said = Command::new("g++").arg("--version").output().expect("g++");
    assert_eq!(compiler, String::from_utf8_lossy(&said.stdout).lines().next().expect("a line").trim());
    assert_eq!(recipe["sources"][0]["path"], "matmul.cpp");
    assert_eq!(recipe["sources"][0]["sha256"], sha256(&lab.project.join("matmul.cpp")));
    let kept = recipe["sources"][0]["kept"].as_str().expect("kept");
    assert_eq!(std::fs::read_to_string(lab.root.join("alice").join(kept)).expect("kept copy"), PROGRAM);
    assert_eq!(recipe["program_sha256"], sha256(&lab.project.join("mm")));
    // The row's build is the recipe as it ran (N11), with the compiler.
    let long = ok(vernier_in(&lab.root, &lab.tmp, &["show", &lab.nb("alice"), "--run", "1"]));
    assert!(text(&long).contains("build: g++ -O2 '-std=c++17' matmul.cpp -o mm (built by Vernier"), "{}", text(&long));
    assert!(text(&long).contains(&format!("compiler: {compiler}")), "{}", text(&long));

    // Bob has her notebook folder only.
    copy_tree(&lab.root.join("alice"), &lab.root.join("alice-copy"));
    std::fs::remove_dir_all(&lab.project).expect("project deleted");
    let copy = lab.nb("alice-copy");
    let bob = lab.nb("bob");
    let out = vernier_in(
        &lab.root,
        &lab.tmp,
        &["reproduce", &copy, "--row", "1", "--notebook", &bob, "--rebuild", "--yes", "--keep-scratch"],
    );
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("the rebuild produced the same program (SHA-256"), "{said}");
    assert!(said.contains("the same binary as theirs"), "{said}");
    let rows = lab.runs("bob");
    let rebuilt = &rows[0]["recipe"];
    assert_eq!(rebuilt["argv"], recipe["argv"]);
    assert_eq!(rebuilt["program_sha256"], recipe["program_sha256"]);
    assert_eq!(rebuilt["rebuilt_from"]["compiler"], compiler);
    // Named as her row names it; the command keeps where it ran, and the
    // row says it was rebuilt in a scratch folder.
    assert_eq!(rows[0]["columns"]["What"], runs[0]["columns"]["What"]);
    assert_eq!(rows[0]["columns"]["What"], "./mm 10");
    let ran = rows[0]["command"][0].as_str().expect("command");
    assert!(ran.starts_with(&lab.tmp.display().to_string()) && ran.ends_with("/mm"), "{ran}");
    assert!(conditions(&rows[0]).contains("from its kept sources in a scratch folder"), "{}", conditions(&rows[0]));
    assert_eq!(lab.kept("bob").len(), 1, "Bob's notebook keeps the source too");
    // The scratch folder is Bob's, under his TMPDIR, kept (--keep-scratch)
    // and holds the source.
    let scratch: Vec<PathBuf> = std::fs::read_dir(&lab.tmp).expect("tmp").map(|e| e.expect("e").path()).collect();
    assert_eq!(scratch.len(), 1, "{scratch:?}");
    assert_eq!(std::fs::read_to_string(scratch[0].join("matmul.cpp")).expect("written"), PROGRAM);
}

/// A row's conditions, one `field: value` a line.
fn conditions(row: &Value) -> String {
    let list = row["conditions"].as_array().cloned().unwrap_or_default();
    list.iter()
        .map(|c| format!("{}: {}\n", c["field"].as_str().unwrap_or(""), c["value"].as_str().unwrap_or("")))
        .collect()
}

// SPEC N15, R5, R3: a comparison whose arms two recipes built (-O2 against
// -O0) is rebuilt arm by arm from her notebook folder alone: the plan shows
// both recipes as they will run, each rebuilt program is the same as hers,
// both are rerun interleaved, and Bob's comparison keeps each arm's recipe
// with both compilers and her rows' names. Then, her arm B's program
// standing for a build elsewhere, only arm B is a different program.
#[test]
fn a_comparison_of_two_recipes_is_rebuilt_arm_by_arm() {
    if !have_gxx() {
        return;
    }
    let lab = Lab::new();
    let alice = lab.nb("alice");
    let (recipe_a, recipe_b) = ("g++ -O2 matmul.cpp -o mm-O2", "g++ -O0 matmul.cpp -o mm-O0");
    let bench = [
        "bench",
        "-n",
        "3",
        "--warmup",
        "0",
        "--build-cmd-a",
        recipe_a,
        "--build-cmd-b",
        recipe_b,
        "--vs",
        "./mm-O0 10",
        "--notebook",
        &alice,
        "--",
        "./mm-O2",
        "10",
    ];
    ok(vernier_in(&lab.project, &lab.tmp, &bench));
    let hers = lab.runs("alice");
    let programs = [sha256(&lab.project.join("mm-O2")), sha256(&lab.project.join("mm-O0"))];
    copy_tree(&lab.root.join("alice"), &lab.root.join("alice-copy"));
    std::fs::remove_dir_all(&lab.project).expect("project deleted");
    let (copy, bob) = (lab.nb("alice-copy"), lab.nb("bob"));

    let plan =
        text(&vernier_in(&lab.root, &lab.tmp, &["reproduce", &copy, "--row", "1", "--notebook", &bob, "--rebuild"]));
    assert!(plan.contains("Nothing was run"), "{plan}");
    for (arm, recipe) in [("A", recipe_a), ("B", recipe_b)] {
        assert!(plan.contains(&format!("build {arm} (runs first in ")), "{plan}");
        assert!(plan.contains(&format!(": {recipe}\n")), "{recipe}: {plan}");
        assert!(plan.contains(&format!("their compiler (arm {arm}): g++")), "{plan}");
        // SPEC N13: nothing named by their files runs before the yes.
        assert!(plan.contains(&format!("compiler here (arm {arm}): asked after you agree")), "{plan}");
    }
    assert!(plan.contains("sources written there (1):"), "one matmul.cpp for both recipes: {plan}");
    assert_eq!(lab.scratch_folders(), 0, "nothing written before the consent");
    // Without --rebuild, the plan still names each arm's recipe.
    let plan = text(&vernier_in(&lab.root, &lab.tmp, &["reproduce", &copy, "--row", "1", "--notebook", &bob]));
    for (arm, recipe) in [("A", recipe_a), ("B", recipe_b)] {
        assert!(plan.contains(&format!("arm {arm}: their build recipe: {recipe}\n")), "{plan}");
    }

    let args = ["reproduce", &copy, "--row", "1", "--notebook", &bob, "--rebuild", "--yes", "--keep-scratch"];
    let out = vernier_in(&lab.root, &lab.tmp, &args);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert_eq!(said.matches("the rebuild produced the same program (SHA-256").count(), 2, "{said}");
    for arm in ["A", "B"] {
        assert!(said.contains(&format!("program ({arm}): ")), "{said}");
    }
    assert_eq!(said.matches("the same binary as theirs").count(), 2, "{said}");
    let rows = lab.runs("bob");
    assert_eq!(rows.len(), 2, "both arms rerun");
    for (i, mine) in rows.iter().enumerate() {
        assert_eq!(mine["recipe"]["argv"], hers[i]["recipe"]["argv"]);
        assert_eq!(mine["recipe"]["program_sha256"], programs[i]);
        assert_eq!(mine["recipe"]["rebuilt_from"]["compiler"], hers[i]["recipe"]["compiler"]);
        assert_eq!(mine["recipe"]["rebuilt_from"]["row"], format!("run {} of {copy}", i + 1));
        assert!(mine["recipe"]["compiler"].as_str().is_some_and(|c| c.starts_with("g++")), "{mine}");
        assert_eq!(mine["columns"]["What"], hers[i]["columns"]["What"], "named as hers");
    }
    let shown = json(&ok(vernier_in(&lab.root, &lab.tmp, &["show", &bob, "--json"])));
    assert_eq!(shown["comparisons"][0]["runs"], serde_json::json!([1, 2]), "recorded as a comparison");
    let scratch: Vec<PathBuf> = std::fs::read_dir(&lab.tmp).expect("tmp").map(|e| e.expect("e").path()).collect();
    assert_eq!(scratch.len(), 1, "one scratch folder for both recipes: {scratch:?}");
    assert!(scratch[0].join("mm-O2").is_file() && scratch[0].join("mm-O0").is_file());

    // Her arm B's program as built on another machine: only arm B differs.
    let ron = lab.root.join("alice-copy").join("notebook.ron");
    let before = std::fs::read_to_string(&ron).expect("ron");
    std::fs::write(&ron, before.replace(&programs[1], &"0".repeat(64))).expect("her other build");
    let out =
        vernier_in(&lab.root, &lab.tmp, &["reproduce", &copy, "--row", "2", "--notebook", &bob, "--rebuild", "--yes"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert_eq!(said.matches("the rebuild produced the same program").count(), 1, "arm A: {said}");
    let compiler = hers[1]["recipe"]["compiler"].as_str().expect("compiler");
    let sentence = format!(
        "a different program (SHA-256 {} here, 000000000000 theirs): compilers {compiler} against {compiler}",
        &programs[1][..12]
    );
    assert!(said.contains(&sentence) && said.contains("-ffile-prefix-map"), "{said}");
    let verdict = |arm: &str| said.lines().find(|l| l.starts_with(&format!("  arm {arm}: "))).unwrap_or("").to_owned();
    assert!(verdict("B").contains("mm-O0: a different binary: theirs had SHA-256 000000000000"), "{said}");
    assert!(!verdict("A").contains("a different binary"), "{said}");
}

// SPEC N15: a recipe whose -o names another file than the one measured
// stops before measuring, saying which file differs; no row, no source kept.
#[test]
fn a_recipe_that_builds_another_program_stops_before_measuring() {
    if !have_gxx() {
        return;
    }
    let lab = Lab::new();
    let out = lab.bench("g++ matmul.cpp -o other", &[], "./mm");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("the build wrote other, but the run measures ./mm"), "{}", text(&out));
    assert!(lab.runs("alice").is_empty());
    assert!(lab.kept("alice").is_empty());
    // A failing build: its message shown, exit 1, nothing measured.
    let out = lab.bench("g++ missing.cpp -o mm", &[], "./mm");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("missing.cpp"), "the compiler's own message: {}", text(&out));
    assert!(text(&out).contains("nothing was measured"), "{}", text(&out));
    assert!(lab.runs("alice").is_empty());
}

// SPEC N13, R5: without --yes a reproduce runs neither the build nor the
// program: the plan shows the build as it will run and the compilers, and
// no scratch folder is left behind.
#[test]
fn a_reproduce_without_yes_runs_nothing() {
    if !have_gxx() {
        return;
    }
    let lab = Lab::new();
    ok(lab.bench("g++ -O2 matmul.cpp -o mm", &[], "./mm"));
    let (alice, bob) = (lab.nb("alice"), lab.nb("bob"));
    let out = vernier_in(&lab.root, &lab.tmp, &["reproduce", &alice, "--row", "1", "--notebook", &bob, "--rebuild"]);
    let plan = text(&out);
    assert_eq!(out.status.code(), Some(1), "{plan}");
    assert!(plan.contains("Nothing was run"), "{plan}");
    assert!(plan.contains("build (runs first in"), "{plan}");
    assert!(plan.contains(": g++ -O2 matmul.cpp -o mm"), "{plan}");
    assert!(plan.contains("their compiler: g++"), "{plan}");
    assert!(plan.contains("compiler here: asked after you agree"), "{plan}");
    assert!(plan.contains("matmul.cpp, "), "{plan}");
    assert!(lab.runs("bob").is_empty());
    assert_eq!(lab.scratch_folders(), 0, "the scratch folder is removed when nothing runs");
}

// SPEC N15: a source that leaves the project folder, a symbolic link, a
// FIFO, a 10 GB file and a folder of 100 000 files are each refused by
// name before anything is measured, and nothing is kept in raw/.
// A symlink, a FIFO and an executable script are Unix's: these cases run there.
#[cfg(unix)]
#[test]
fn hostile_sources_are_refused_by_name() {
    if !have_gxx() {
        return;
    }
    let lab = Lab::new();
    let p = &lab.project;
    std::fs::write(lab.root.join("outside.h"), "int x;").expect("outside");
    std::os::unix::fs::symlink(p.join("matmul.cpp"), p.join("link.h")).expect("symlink");
    assert!(Command::new("mkfifo").arg(p.join("pipe.h")).status().expect("mkfifo").success());
    std::fs::File::create(p.join("huge.bin")).expect("huge").set_len(10 << 30).expect("sparse 10 GB");
    std::fs::create_dir(p.join("many")).expect("many");
    for i in 0..100_000 {
        std::fs::File::create(p.join("many").join(i.to_string())).expect("file");
    }
    let cases = [
        ("../outside.h", "is outside the project folder"),
        ("link.h", "is a symbolic link"),
        ("pipe.h", "is not a regular file"),
        ("huge.bin", "more than the 64 MiB a source may be"),
        ("many", "holds more than 4096 files"),
    ];
    for (source, why) in cases {
        let out = lab.bench("g++ matmul.cpp -o mm", &["--source", source], "./mm");
        let said = text(&out);
        assert_eq!(out.status.code(), Some(1), "{source}: {said}");
        assert!(said.contains(why) && said.contains("nothing was measured"), "{source}: {said}");
        assert!(!p.join("mm").exists(), "{source}: refused before the build ran");
    }
    assert!(lab.runs("alice").is_empty());
    assert!(lab.kept("alice").is_empty(), "nothing half-written into raw/");
}

// SPEC N15: a compiler that hangs on --version is given up on within its
// bound; the build and the run go on, and the row says why there is no
// version. SPEC R5: such a compiler is not asked before consent.
// A symlink, a FIFO and an executable script are Unix's: these cases run there.
#[cfg(unix)]
#[test]
fn a_compiler_that_hangs_on_version_is_bounded() {
    if !have_gxx() {
        return;
    }
    let lab = Lab::new();
    let script = lab.project.join("slowcc");
    std::fs::write(&script, "#!/bin/sh\nif [ \"$1\" = --version ]; then sleep 30; fi\nexec g++ \"$@\"\n")
        .expect("script");
    let mut perms = std::fs::metadata(&script).expect("meta").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&script, perms).expect("chmod");
    let started = std::time::Instant::now();
    let out = ok(lab.bench("./slowcc matmul.cpp -o mm", &[], "./mm"));
    assert!(started.elapsed() < std::time::Duration::from_secs(25), "bounded: {:?}", started.elapsed());
    let compiler = lab.runs("alice")[0]["recipe"]["compiler"].as_str().expect("compiler").to_owned();
    assert!(compiler.contains("no answer within 3 s"), "{compiler} / {}", text(&out));
    let (alice, bob) = (lab.nb("alice"), lab.nb("bob"));
    let plan =
        text(&vernier_in(&lab.root, &lab.tmp, &["reproduce", &alice, "--row", "1", "--notebook", &bob, "--rebuild"]));
    assert!(plan.contains("compiler here: asked after you agree"), "{plan}");
    // SPEC N13: a compiler no table knows, named by their file, needs the
    // second consent.
    assert!(plan.contains("runs slowcc with their arguments: such a program can run code they wrote"), "{plan}");
}

// SPEC R5: their notebook is a file anyone can edit: a source name that
// leaves the scratch folder, or a kept copy that is not the file hashed,
// stops the rebuild by name, and nothing is written or run.
#[test]
fn a_hostile_notebook_cannot_write_outside_the_scratch_folder() {
    if !have_gxx() {
        return;
    }
    let lab = Lab::new();
    ok(lab.bench("g++ -O2 matmul.cpp -o mm", &[], "./mm"));
    let ron = lab.root.join("alice").join("notebook.ron");
    let original = std::fs::read_to_string(&ron).expect("ron");
    let bob = lab.nb("bob");
    for (from, to, why) in [
        ("path: \"matmul.cpp\"", "path: \"../evil.cpp\"", "its name leaves the folder"),
        ("path: \"matmul.cpp\"", "path: \"/tmp/evil.cpp\"", "its name leaves the folder"),
        ("program: \"mm\"", "program: \"../mm\"", "the program's name leaves the folder"),
        // A hash that is not one is refused on load (a fuzz finding).
        ("program_sha256: \"", "program_sha256: \"/x\\n  command: true ", "which is not 64 hex digits"),
    ] {
        assert!(original.contains(from), "{from}");
        std::fs::write(&ron, original.replace(from, to)).expect("edit");
        let out = vernier_in(
            &lab.root,
            &lab.tmp,
            &["reproduce", &lab.nb("alice"), "--row", "1", "--notebook", &bob, "--rebuild", "--yes"],
        );
        let said = text(&out);
        assert_eq!(out.status.code(), Some(2), "{to}: {said}");
        assert!(said.contains(why), "{to}: {said}");
        assert!(!lab.root.join("evil.cpp").exists() && !Path::new("/tmp/evil.cpp").exists());
    }
    std::fs::write(&ron, &original).expect("restore");
    let kept = lab.kept("alice").pop().expect("a kept source");
    std::fs::write(lab.root.join("alice").join("raw").join(&kept), "int main() { return 1; }").expect("tamper");
    let out = vernier_in(
        &lab.root,
        &lab.tmp,
        &["reproduce", &lab.nb("alice"), "--row", "1", "--notebook", &bob, "--rebuild", "--yes"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("is not the file their row hashed"), "{}", text(&out));
    assert!(lab.runs("bob").is_empty());
    assert_eq!(lab.scratch_folders(), 0);
}

// SPEC N15, R5: a source too large to keep is hashed, not kept, and the row
// says so; a rebuild stops naming it, unless --sources DIR holds a file
// with that SHA-256.
#[test]
fn a_source_too_large_to_keep_is_asked_for() {
    if !have_gxx() {
        return;
    }
    let lab = Lab::new();
    let big = format!("// {}\n", "x".repeat(2 << 20));
    std::fs::write(lab.project.join("big.h"), &big).expect("big");
    ok(lab.bench("g++ matmul.cpp -o mm", &["--source", "big.h"], "./mm"));
    let runs = lab.runs("alice");
    let sources = runs[0]["recipe"]["sources"].as_array().expect("sources").clone();
    let big_source = sources.iter().find(|s| s["path"] == "big.h").expect("big.h recorded");
    assert!(big_source["kept"].is_null(), "{big_source}");
    let long = text(&vernier_in(&lab.root, &lab.tmp, &["show", &lab.nb("alice"), "--run", "1"]));
    assert!(long.contains("big.h, 2097156 bytes") && long.contains("not kept (too large)"), "{long}");
    let (alice, bob) = (lab.nb("alice"), lab.nb("bob"));
    let args = ["reproduce", alice.as_str(), "--row", "1", "--notebook", bob.as_str(), "--rebuild", "--yes"];
    let out = vernier_in(&lab.root, &lab.tmp, &args);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("source big.h: their notebook hashed it"), "{}", text(&out));
    assert!(lab.runs("bob").is_empty());
    let given = lab.project.display().to_string();
    let mut with_sources = args.to_vec();
    with_sources.extend_from_slice(&["--sources", &given]);
    let out = vernier_in(&lab.root, &lab.tmp, &with_sources);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(lab.runs("bob").len(), 1);
}

// SPEC R5, N15: from a workbook alone the recipe and its hashes are shown,
// and the plan says the sources are not in a workbook; --rebuild from it
// is refused, naming the folder's raw/.
#[test]
fn a_workbook_shows_the_recipe_but_cannot_rebuild() {
    if !have_gxx() {
        return;
    }
    let lab = Lab::new();
    ok(lab.bench("g++ -O2 matmul.cpp -o mm", &[], "./mm"));
    let alice = lab.nb("alice");
    ok(vernier_in(&lab.root, &lab.tmp, &["export", &alice]));
    let workbook = lab.root.join("alice").join("exports").join("measurements.xlsx").display().to_string();
    let bob = lab.nb("bob");
    let plan = text(&vernier_in(&lab.root, &lab.tmp, &["reproduce", &workbook, "--row", "1", "--notebook", &bob]));
    assert!(plan.contains("the sources are not in a workbook (they are in the notebook folder's raw/)"), "{plan}");
    assert!(plan.contains("their build recipe: g++ -O2 matmul.cpp -o mm"), "{plan}");
    assert!(plan.contains("matmul.cpp, ") && plan.contains("SHA-256"), "{plan}");
    let out = vernier_in(&lab.root, &lab.tmp, &["reproduce", &workbook, "--row", "1", "--notebook", &bob, "--rebuild"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("the sources are not in a workbook"), "{}", text(&out));
    assert_eq!(lab.scratch_folders(), 0);
}

// SPEC N15: a comparison's arms each get their own recipe, each row keeps
// its own; a sweep builds once for every point; -O0 in a recipe is warned
// about before measuring (A18).
#[test]
fn recipes_per_arm_and_per_sweep() {
    if !have_gxx() {
        return;
    }
    let lab = Lab::new();
    let alice = lab.nb("alice");
    let out = ok(vernier_in(
        &lab.project,
        &lab.tmp,
        &[
            "bench",
            "-n",
            "3",
            "--warmup",
            "0",
            "--build-cmd-a",
            "g++ -O0 matmul.cpp -o mm0",
            "--build-cmd-b",
            "g++ -O2 matmul.cpp -o mm2",
            "--vs",
            "./mm2 10",
            "--notebook",
            &alice,
            "--",
            "./mm0",
            "10",
        ],
    ));
    assert!(text(&out).contains("-O0"), "A18 at once: {}", text(&out));
    let runs = lab.runs("alice");
    assert_eq!(runs[0]["recipe"]["program"], "mm0");
    assert_eq!(runs[1]["recipe"]["program"], "mm2");
    ok(vernier_in(
        &lab.project,
        &lab.tmp,
        &[
            "bench",
            "-n",
            "3",
            "--warmup",
            "0",
            "--build-cmd",
            "g++ -O2 matmul.cpp -o mm",
            "--param",
            "N=5,10",
            "--notebook",
            &alice,
            "--",
            "./mm",
            "{N}",
        ],
    ));
    let runs = lab.runs("alice");
    assert_eq!(runs.len(), 4);
    assert_eq!(runs[2]["recipe"], runs[3]["recipe"], "one build for every point");
}

// SPEC R5, R4: a rebuild that produces another program than theirs says so
// with both compilers — the same compiler here, so where else the
// difference may come from — before the rerun, and the verdict names the
// different binary. Their program's SHA-256 is changed in their file to
// stand for a build on another machine.
#[test]
fn a_rebuild_of_another_program_says_so_with_both_compilers() {
    if !have_gxx() {
        return;
    }
    let lab = Lab::new();
    ok(lab.bench("g++ -O2 matmul.cpp -o mm", &[], "./mm"));
    let theirs = sha256(&lab.project.join("mm"));
    let ron = lab.root.join("alice").join("notebook.ron");
    let text_before = std::fs::read_to_string(&ron).expect("ron");
    let other = "0".repeat(64);
    std::fs::write(&ron, text_before.replace(&theirs, &other)).expect("their other build");
    let (alice, bob) = (lab.nb("alice"), lab.nb("bob"));
    let out =
        vernier_in(&lab.root, &lab.tmp, &["reproduce", &alice, "--row", "1", "--notebook", &bob, "--rebuild", "--yes"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let compiler = lab.runs("alice")[0]["recipe"]["compiler"].as_str().expect("compiler").to_owned();
    let sentence = format!(
        "a different program (SHA-256 {} here, 000000000000 theirs): compilers {compiler} against {compiler}",
        &theirs[..12]
    );
    assert!(said.contains(&sentence), "{said}");
    assert!(said.contains("-ffile-prefix-map"), "{said}");
    assert!(said.contains("a different binary: theirs had SHA-256 000000000000"), "the verdict names it: {said}");
    let rows = lab.runs("bob");
    assert_eq!(rows[0]["recipe"]["rebuilt_from"]["program_sha256"], other);
    assert_eq!(rows[0]["recipe"]["program_sha256"], theirs);
}
