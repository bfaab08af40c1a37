//! The placement assistant (SPEC D6): for each workload, the cheapest
//! processor (least energy) that meets its deadline, the alternative it
//! beat and why, the cost with a unit, "none of these" when nothing
//! qualifies, and energy scaled to a duty cycle with the multiplication shown.

use std::collections::BTreeMap;

use crate::stats::units::plain;

/// The shipped synthetic dataset, built into the binary.
pub const SHIPPED: &str = include_str!("../../../datasets/placement-bench.csv");
/// Where [`SHIPPED`] lives in the repository, for captions and provenance.
pub const SOURCE: &str = "datasets/placement-bench.csv";

/// One workload on one processor.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Workload name.
    pub workload: String,
    /// Processor name.
    pub processor: String,
    /// Latency per run, ms (`None` when unsupported).
    pub latency_ms: Option<f64>,
    /// Energy per run, mJ (`None` when unsupported).
    pub energy_mj: Option<f64>,
}

/// One row of the placement table.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// Workload.
    pub workload: String,
    /// The chosen processor, or "none of these".
    pub processor: String,
    /// Why, naming what it beat and why that lost.
    pub why: String,
    /// What it costs, with its unit (and the duty-cycle multiplication).
    pub cost: String,
}

/// Why a placement table does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlacementError {
    /// A line that does not read, and why.
    #[error("line {line}: {why}")]
    Line {
        /// The line, from 1.
        line: usize,
        /// What is wrong there.
        why: String,
    },
    /// A header and nothing else.
    #[error("no rows")]
    NoRows,
}

/// Reads `workload,processor,latency_ms,energy_mj,supported`; the message
/// names the line of anything that is not a number or a 0/1 flag.
pub fn parse(text: &str) -> Result<Vec<Entry>, PlacementError> {
    let mut entries = Vec::new();
    let mut header = false;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |why: &str| PlacementError::Line { line: i + 1, why: why.to_owned() };
        if !header {
            if line.replace(' ', "") != "workload,processor,latency_ms,energy_mj,supported" {
                return Err(at("expected the header workload,processor,latency_ms,energy_mj,supported"));
            }
            header = true;
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let [workload, processor, latency, energy, supported] = fields.as_slice() else {
            return Err(at("expected 5 fields"));
        };
        let number = |t: &str, what: &str| -> Result<f64, PlacementError> {
            t.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| at(&format!("{what} '{t}' is not a number")))
        };
        let (latency_ms, energy_mj) = match *supported {
            "1" => (Some(number(latency, "latency")?), Some(number(energy, "energy")?)),
            "0" => (None, None),
            other => return Err(at(&format!("supported must be 0 or 1, not '{other}'"))),
        };
        entries.push(Entry { workload: (*workload).into(), processor: (*processor).into(), latency_ms, energy_mj });
    }
    if entries.is_empty() {
        return Err(PlacementError::NoRows);
    }
    Ok(entries)
}

/// Decides every workload that has a budget (ms); `rates` gives runs per
/// second for the duty-cycle line.
pub fn decide(entries: &[Entry], budgets: &BTreeMap<String, f64>, rates: &BTreeMap<String, f64>) -> Vec<Decision> {
    budgets
        .iter()
        .map(|(workload, &budget)| {
            let options: Vec<&Entry> = entries.iter().filter(|e| &e.workload == workload).collect();
            let mut meeting: Vec<&Entry> =
                options.iter().copied().filter(|e| e.latency_ms.is_some_and(|l| l <= budget)).collect();
            meeting
                .sort_by(|a, b| a.energy_mj.unwrap_or(f64::INFINITY).total_cmp(&b.energy_mj.unwrap_or(f64::INFINITY)));
            let unsupported: Vec<&str> =
                options.iter().filter(|e| e.latency_ms.is_none()).map(|e| e.processor.as_str()).collect();
            let over: Vec<String> = options
                .iter()
                .filter_map(|e| {
                    e.latency_ms
                        .filter(|&l| l > budget)
                        .map(|l| format!("{} ({l} ms, over the {budget} ms budget)", e.processor))
                })
                .collect();
            let Some(best) = meeting.first() else {
                let why = if options.is_empty() {
                    "the dataset has no processor for this workload".to_owned()
                } else {
                    let mut parts = over.clone();
                    if !unsupported.is_empty() {
                        parts.push(format!("{} unsupported", unsupported.join(", ")));
                    }
                    format!("nothing meets {budget} ms: {}", parts.join("; "))
                };
                return Decision {
                    workload: workload.clone(),
                    processor: "none of these".into(),
                    why,
                    cost: "—".into(),
                };
            };
            let (latency, energy) = (best.latency_ms.unwrap_or(0.0), best.energy_mj.unwrap_or(0.0));
            let mut beat: Vec<String> = meeting[1..]
                .iter()
                .map(|e| {
                    let other = e.energy_mj.unwrap_or(0.0);
                    let times =
                        if energy > 0.0 { format!(" — {:.1}× the energy", other / energy) } else { String::new() };
                    format!("beat {} ({} ms, {other} mJ{times})", e.processor, e.latency_ms.unwrap_or(0.0))
                })
                .collect();
            beat.extend(over.iter().cloned());
            if !unsupported.is_empty() {
                beat.push(format!("{} unsupported", unsupported.join(", ")));
            }
            let why =
                format!("{latency} ms inside {budget} ms, least energy of those that meet it; {}", beat.join("; "));
            // The energy and the rate are the dataset's and the student's
            // own digits; what is computed from them is written by the one
            // display rule (S12), so no float artefact reaches the table.
            let per_run = plain(energy, "mJ");
            let cost = match rates.get(workload) {
                Some(&rate) => {
                    let per_second = energy * rate;
                    format!(
                        "{per_run} per run; at {rate} runs/s: {per_run} × {rate} /s = {} = {}",
                        plain(per_second, "mJ/s"),
                        plain(per_second / 1000.0, "W")
                    )
                }
                None => format!("{per_run} per run"),
            };
            Decision { workload: workload.clone(), processor: best.processor.clone(), why, cost }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budgets(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
    }

    // SPEC D6: the course's worked figures from the shipped synthetic dataset.
    #[test]
    fn cheapest_processor_that_meets_the_deadline() {
        let entries = parse(SHIPPED).expect("shipped dataset parses");
        assert_eq!(entries.len(), 24);
        let d = decide(
            &entries,
            &budgets(&[("image_classification", 50.0), ("video_encode_4k30_1s", 1000.0), ("game_frame", 16.7)]),
            &budgets(&[("game_frame", 60.0)]),
        );
        let by = |w: &str| d.iter().find(|x| x.workload == w).expect("decided");
        let image = by("image_classification");
        assert_eq!(image.processor, "NPU");
        assert_eq!(image.cost, "7 mJ per run");
        assert!(
            image.why.contains("beat DSP") && image.why.contains("GPU (11.5 ms, 26 mJ — 3.7× the energy)"),
            "{}",
            image.why
        );
        assert_eq!(by("video_encode_4k30_1s").processor, "none of these");
        assert!(by("video_encode_4k30_1s").why.contains("NPU unsupported"));
        let game = by("game_frame");
        assert_eq!(game.processor, "GPU");
        assert_eq!(game.cost, "44 mJ per run; at 60 runs/s: 44 mJ × 60 /s = 2640 mJ/s = 2.64 W");
        assert!(game.why.contains("NPU, DSP unsupported"));
    }

    // SPEC D6, S12: the duty-cycle line is in plain watts, the
    // multiplication shown, no float artefact in what was computed.
    #[test]
    fn the_duty_cycle_power_is_plain_watts() {
        let entries =
            parse("workload,processor,latency_ms,energy_mj,supported\ntick,MCU,0.5,0.006,1\n").expect("parses");
        let d = decide(&entries, &budgets(&[("tick", 1.0)]), &budgets(&[("tick", 10.0)]));
        assert_eq!(d[0].cost, "0.006 mJ per run; at 10 runs/s: 0.006 mJ × 10 /s = 0.06 mJ/s = 0.00006 W");
        let d = decide(&entries, &budgets(&[("tick", 1.0)]), &budgets(&[("tick", 0.1)]));
        assert_eq!(d[0].cost, "0.006 mJ per run; at 0.1 runs/s: 0.006 mJ × 0.1 /s = 0.0006 mJ/s = 0.0000006 W");
    }

    #[test]
    fn malformed_rows_name_the_line() {
        assert!(
            parse("workload,processor,latency_ms,energy_mj,supported\nw,CPU,x,1,1\n")
                .expect_err("bad")
                .to_string()
                .starts_with("line 2")
        );
        assert!(parse("a,b\n").is_err());
        assert!(parse("workload,processor,latency_ms,energy_mj,supported\nw,CPU,1,1,2\n").is_err());
    }
}
