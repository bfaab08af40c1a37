//! `vernier soak` as a user runs it (SPEC T, C).

use std::path::Path;

use serde_json::Value;

mod common;
use common::{stderr, vernier};

fn dataset() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../datasets/thermal-soak.csv").to_owned()
}

// SPEC T5, T6, T10: the shipped synthetic soak: six numbers, onset at 80 s
// in the course tool's view, labelled synthetic.
#[test]
fn analyze_the_shipped_dataset() {
    let o = vernier(&["soak", "analyze", &dataset(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("json");
    for key in [
        "peak",
        "t_onset",
        "t_stable",
        "sustained",
        "ratio",
        "tail_iqr",
        "tail_iqr_fraction",
        "placeholders",
        "thresholds",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["course_view"]["clock_onset"], 80.0);
    assert_eq!(v["t_onset"], 80.0);
    assert!(v["ratio"].as_f64().expect("ratio") < 0.7, "sustained far below peak");
    assert_eq!(v["synthetic"], true);
    let text = String::from_utf8_lossy(&vernier(&["soak", "analyze", &dataset()]).stdout).into_owned();
    assert!(text.starts_with("SYNTHETIC"), "{text}");
    assert!(text.contains("throttle onset from the clock: t = 80 s"));
}

// SPEC T4, C: malformed soak files are exit 2 naming the line; nothing panics.
#[test]
fn malformed_files_are_exit_2() {
    let tmp = tempfile::tempdir().expect("tmp");
    let header = "t_seconds,clock_mhz,power_w,soc_temp_c,skin_temp_c,score\n";
    let cases = [
        ("empty", String::new(), "no header line"),
        ("comments", "# only\n".to_owned(), "no header line"),
        ("order", "score,t_seconds,clock_mhz,power_w,soc_temp_c,skin_temp_c\n".to_owned(), "line 1"),
        ("cell", format!("{header}10,1,1,1,1,fast\n"), "line 2: column 'score': 'fast' is not a number"),
        ("backwards", format!("{header}10,1,1,1,1,1\n9,1,1,1,1,1\n"), "line 3"),
        ("short", format!("{header}10,1,1\n"), "line 2: 3 fields"),
        ("nan", format!("{header}10,nan,1,1,1,1\n"), "line 2: column 'clock_mhz'"),
    ];
    for (name, text, expected) in cases {
        let path = tmp.path().join(format!("{name}.csv"));
        std::fs::write(&path, text).expect("write");
        let o = vernier(&["soak", "analyze", &path.display().to_string()]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains(expected), "{name}: {}", stderr(&o));
    }
    let random = tmp.path().join("random.csv");
    std::fs::write(&random, (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8).collect::<Vec<u8>>())
        .expect("write");
    assert_eq!(vernier(&["soak", "analyze", &random.display().to_string()]).status.code(), Some(2));
}

// SPEC T2, T3, T4: a short real soak writes the six columns as it goes, with
// its conditions and placeholders, and analyses cleanly; recorded in a
// notebook it locks the predictions before it.
#[test]
fn short_soak_runs_and_records() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb").display().to_string();
    assert_eq!(vernier(&["new", &dir]).status.code(), Some(0));
    // T1: no soak without its protocol fixed first.
    let o = vernier(&["soak", "run", "--workers", "1", "--notebook", &dir]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("fix the soak protocol with your prediction first"), "{}", stderr(&o));
    let o = vernier(&[
        "predict",
        &dir,
        "--experiment",
        "soak",
        "--predict",
        "no throttling on a VM",
        "--why",
        "no thermal limit",
        "--soak",
        "--duration",
        "6",
        "--interval",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = vernier(&["soak", "run", "--duration", "8", "--notebook", &dir]);
    assert!(stderr(&o).contains("differs from the protocol fixed with P1"), "{}", stderr(&o));
    let o = vernier(&["soak", "run", "--workers", "1", "--notebook", &dir]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let csv = std::fs::read_to_string(Path::new(&dir).join("raw/soak-1.csv")).expect("the soak file");
    assert!(csv.contains("\nt_seconds,clock_mhz,power_w,soc_temp_c,skin_temp_c,score\n"));
    for comment in [
        "# machine:",
        "# logical CPUs:",
        "# workers: 1",
        "# chunk size:",
        "# calibrated chunk time:",
        "# placeholders:",
    ] {
        assert!(csv.contains(comment), "missing {comment}");
    }
    let rows = csv.lines().filter(|l| !l.starts_with('#') && !l.starts_with("t_seconds")).count();
    assert!((5..=6).contains(&rows), "{rows} samples");
    let shown: Value = serde_json::from_slice(&vernier(&["show", &dir, "--json"]).stdout).expect("json");
    assert_eq!(shown["soaks"][0]["columns"]["#"], "S1");
    assert_eq!(shown["predictions"][0]["locked"], true);
    let o = vernier(&["soak", "analyze", &Path::new(&dir).join("raw/soak-1.csv").display().to_string(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

// SPEC T9: two soaks number by number.
#[test]
fn compare_two_soaks() {
    let o = vernier(&["soak", "compare", &dataset(), &dataset(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["disagree"], false);
    assert_eq!(v["lines"].as_array().expect("lines").len(), 3);
}
