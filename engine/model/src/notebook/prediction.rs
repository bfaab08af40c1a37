//! Predictions, their locks, and the hash chain that makes a hand edit
//! visible (SPEC N4).

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::columns::PredictionColumn;
use super::committed::Committed;

/// What a student writes down before running anything.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PredictionText {
    /// `Experiment`
    pub experiment: String,
    /// `What I predict`
    pub predict: String,
    /// `Why`
    pub why: String,
    /// The figure it commits to, if any (N14); absent in notebooks written
    /// before figures existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub figure: Option<Committed>,
}

/// A later correction of a locked prediction; the original stays as it was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Amendment {
    /// Number of the prediction this amends (`P{of}`).
    pub of: u32,
    /// The amended prediction's `What I predict`, quoted at amendment time.
    pub quote: String,
}

/// What locked a prediction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LockCause {
    /// The user locked it.
    User,
    /// Run `n` was recorded after it.
    Run(u32),
    /// Soak `S{n}` was recorded after it.
    Soak(u32),
    /// A soak started under a protocol fixed by then (T1): its prediction
    /// and protocol are fixed from the start, not from the recording.
    SoakStarted,
}

/// When and why a prediction became read-only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lock {
    /// The moment it locked.
    #[serde(with = "super::time")]
    pub at: DateTime<Utc>,
    /// What locked it.
    pub cause: LockCause,
}

impl Lock {
    /// A short form for tables: "by run 3", "by hand on 2026-11-30 06:05".
    pub fn short(&self) -> String {
        match self.cause {
            LockCause::User => format!("by hand on {}", self.at.format("%Y-%m-%d %H:%M")),
            LockCause::Run(n) => format!("by run {n}"),
            LockCause::Soak(n) => format!("by soak S{n}"),
            LockCause::SoakStarted => format!("by the soak started {}", self.at.format("%Y-%m-%d %H:%M")),
        }
    }
}

impl std::fmt::Display for Lock {
    /// Completes "changed after …".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.cause {
            LockCause::User => write!(f, "it was locked at {}", self.at.format("%Y-%m-%d %H:%M:%S UTC")),
            LockCause::Run(n) => write!(f, "run {n} was recorded"),
            LockCause::Soak(n) => write!(f, "soak S{n} was recorded"),
            LockCause::SoakStarted => write!(f, "a soak started at {}", self.at.format("%Y-%m-%d %H:%M:%S UTC")),
        }
    }
}

/// A row of the Predictions section, sealed into the chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prediction {
    /// `#`, shown as `P{number}`.
    pub number: u32,
    /// `Experiment`
    pub experiment: String,
    /// `What I predict`
    pub predict: String,
    /// `Why`
    pub why: String,
    /// When it was written down.
    #[serde(with = "super::time")]
    pub recorded_at: DateTime<Utc>,
    /// Set when this row amends an earlier one.
    pub amends: Option<Amendment>,
    /// A soak protocol fixed with this prediction, before the soak (T1).
    #[serde(default)]
    pub protocol: Option<super::run::SoakProtocol>,
    /// Why the protocol's windows or thresholds differ from the defaults
    /// or from the protocol it amends (T13): sealed with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_why: Option<String>,
    /// The figure it commits to (N14): sealed with the words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub figure: Option<Committed>,
    /// Set once it is read-only. Sealed with the content, so a lock removed
    /// by hand breaks the seal (and any later run still implies it).
    pub lock: Option<Lock>,
    /// The previous prediction's `hash` ("" for the first).
    pub prev: String,
    /// SHA-256 (hex) over `prev` and this row's content.
    pub hash: String,
}

impl Prediction {
    /// `P{number}`.
    pub fn label(&self) -> String {
        format!("P{}", self.number)
    }

    /// The cell under `column` as displayed, inert (SPEC N10); `Why`
    /// carries the quoted original of an amendment.
    pub fn cell(&self, column: PredictionColumn) -> String {
        crate::display::inert_line(match column {
            PredictionColumn::Number => self.label(),
            PredictionColumn::Experiment => self.experiment.clone(),
            PredictionColumn::Predict => self.predict.clone(),
            PredictionColumn::Why => match &self.amends {
                Some(a) => format!("{} [amends P{}: “{}”]", self.why, a.of, a.quote),
                None => self.why.clone(),
            },
            PredictionColumn::Recorded => self.recorded_at.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
        })
    }

    /// Every cell of the row as displayed, in the order of
    /// [`PredictionColumn::ALL`].
    pub fn columns(&self) -> [String; PredictionColumn::ALL.len()] {
        PredictionColumn::ALL.map(|c| self.cell(c))
    }

    /// The seal this row's content and `prev` should carry.
    pub fn expected_hash(&self) -> String {
        let mut h = Sha256::new();
        // Each field is length-prefixed so no two different rows can produce
        // the same byte stream by shifting text between fields.
        let mut field = |bytes: &[u8]| {
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        };
        field(b"vernier prediction v1");
        field(self.prev.as_bytes());
        field(self.number.to_string().as_bytes());
        field(self.experiment.as_bytes());
        field(self.predict.as_bytes());
        field(self.why.as_bytes());
        field(self.recorded_at.to_rfc3339_opts(SecondsFormat::Nanos, true).as_bytes());
        match &self.amends {
            Some(a) => {
                field(a.of.to_string().as_bytes());
                field(a.quote.as_bytes());
            }
            None => field(b"-"),
        }
        // Sealed only when present, so rows without a protocol keep the seal
        // they had before protocols existed.
        if let Some(p) = &self.protocol {
            field(b"soak protocol");
            for v in [p.duration_s, p.interval_s, p.opening_window_s, p.tail_window_s, p.threshold, p.band] {
                field(&v.to_le_bytes());
            }
            field(&p.hold.to_le_bytes());
        }
        // Sealed only when given, so every older row keeps its seal (T13).
        if let Some(why) = &self.protocol_why {
            field(b"protocol why");
            field(why.as_bytes());
        }
        // Likewise a figure: a prediction without one seals as it always did.
        if let Some(figure) = &self.figure {
            field(b"figure");
            field(figure.sealed().as_bytes());
        }
        match &self.lock {
            Some(lock) => {
                field(lock.at.to_rfc3339_opts(SecondsFormat::Nanos, true).as_bytes());
                field(format!("{:?}", lock.cause).as_bytes());
            }
            None => field(b"-"),
        }
        crate::digest::hex(&h.finalize())
    }

    pub(super) fn reseal(&mut self, prev: &str) {
        prev.clone_into(&mut self.prev);
        self.hash = self.expected_hash();
    }
}

/// A prediction whose stored seal does not match its content: it was changed
/// outside Vernier (N4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IntegrityFinding {
    /// The prediction that changed.
    pub prediction: u32,
    /// What had locked it, if anything had.
    pub locked: Option<Lock>,
    /// The sentence to show.
    pub message: String,
}

/// How one row of the chain stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ChainState {
    /// Seal and link hold.
    Sound,
    /// The row's content no longer matches its seal: it was edited.
    SealBroken,
    /// The row's seal holds but its `prev` is not the previous row's hash:
    /// the previous row was edited and re-sealed.
    LinkBroken,
}

/// The state of every row, in order.
pub(super) fn chain_states(predictions: &[Prediction]) -> Vec<ChainState> {
    predictions
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let expected_prev = if i == 0 { "" } else { predictions[i - 1].hash.as_str() };
            if p.hash != p.expected_hash() {
                ChainState::SealBroken
            } else if p.prev != expected_prev {
                ChainState::LinkBroken
            } else {
                ChainState::Sound
            }
        })
        .collect()
}

/// Re-seals rows from `index` on after a permitted change, leaving every
/// break found in `before` in place — so a hand edit is never laundered by
/// a later, legitimate change such as a lock.
pub(super) fn reseal_from(predictions: &mut [Prediction], index: usize, before: &[ChainState]) {
    for i in index..predictions.len() {
        let prev = if i == 0 { String::new() } else { predictions[i - 1].hash.clone() };
        let p = &mut predictions[i];
        match before.get(i).copied().unwrap_or(ChainState::Sound) {
            ChainState::Sound => p.reseal(&prev),
            ChainState::LinkBroken => p.hash = p.expected_hash(),
            ChainState::SealBroken => {}
        }
    }
}

/// Every broken seal or link, as a finding naming the prediction that
/// changed (for a broken link, the row before it).
pub(super) fn verify_chain(
    predictions: &[Prediction],
    lock_of: impl Fn(&Prediction) -> Option<Lock>,
) -> Vec<IntegrityFinding> {
    let mut changed: Vec<usize> = chain_states(predictions)
        .into_iter()
        .enumerate()
        .filter_map(|(i, state)| match state {
            ChainState::Sound => None,
            ChainState::SealBroken => Some(i),
            ChainState::LinkBroken => Some(i.saturating_sub(1)),
        })
        .collect();
    changed.dedup();
    changed
        .into_iter()
        .map(|i| {
            let p = &predictions[i];
            let locked = lock_of(p);
            let message = match &locked {
                Some(lock) => format!("prediction {} changed after {lock}", p.label()),
                None => format!("prediction {} was edited outside Vernier (it was not locked yet)", p.label()),
            };
            IntegrityFinding { prediction: p.number, locked, message }
        })
        .collect()
}
