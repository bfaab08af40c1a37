//! A sweep's parameter as the row keeps it (SPEC E16): its name and values,
//! parsed from `--param NAME=V1,V2,…` or `NAME=START..END*FACTOR`.
//!
//! `--param SIZE=16K..64M*4` expands to the integers 16384, 65536 … (K, M
//! and G are powers of two, as working sets are); `--param N=1,10,100`
//! keeps each value's text exactly as listed. Filling a command with the
//! values is the instrument's (`vernier_instrument::harness::scan`).

use serde::{Deserialize, Serialize};

/// Values one parameter may take: a sweep is interleaved round by round,
/// so every value costs a trial in each round.
pub const MAX_VALUES: usize = 64;
/// Points (combinations of values) one sweep may have.
pub const MAX_POINTS: usize = 256;

/// One parameter of a scan and its values, in the order given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Param {
    /// The name `{NAME}` stands for in the command.
    pub name: String,
    /// Each value's text, as the command receives it.
    pub values: Vec<String>,
    /// The values are sizes in bytes (a range written with K, M or G):
    /// shown as KiB and MiB (SPEC S12).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sizes: bool,
}

/// Why a `--param` text is not a parameter: the message names it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParamError(String);

impl Param {
    /// Parses `NAME=V1,V2,…` or `NAME=START..END*FACTOR`.
    pub fn parse(text: &str) -> Result<Self, ParamError> {
        let (name, values) = text
            .split_once('=')
            .ok_or_else(|| ParamError(format!("--param '{text}': write NAME=V1,V2,… or NAME=START..END*FACTOR")))?;
        let name = name.trim();
        let valid_name = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid_name {
            return Err(ParamError(format!(
                "--param '{text}': the name '{name}' must be letters, digits and _ (it is written {{NAME}} in the command)"
            )));
        }
        let (values, sizes) = match values.split_once("..") {
            Some((start, rest)) => range(start, rest).map_err(|why| ParamError(format!("--param {name}: {why}")))?,
            None => (list(values).map_err(|why| ParamError(format!("--param {name}: {why}")))?, false),
        };
        if values.len() > MAX_VALUES {
            return Err(ParamError(format!(
                "--param {name} has {} values; a sweep takes at most {MAX_VALUES} per parameter",
                values.len()
            )));
        }
        Ok(Self { name: name.to_owned(), values, sizes })
    }

    /// `value` as a person reads it: a size in KiB/MiB, else its text.
    pub fn show(&self, value: &str) -> String {
        match value.parse::<u64>() {
            Ok(bytes) if self.sizes => crate::stats::units::size(bytes as f64),
            _ => crate::display::inert(value).into_owned(),
        }
    }

    /// The placeholder the command carries: `{NAME}`.
    pub fn placeholder(&self) -> String {
        format!("{{{}}}", self.name)
    }
}

fn list(text: &str) -> Result<Vec<String>, String> {
    let values: Vec<String> = text.split(',').map(|v| v.trim().to_owned()).collect();
    if values.iter().any(String::is_empty) {
        return Err("an empty value in the list (write V1,V2,…)".to_owned());
    }
    if let Some(v) = values.iter().find(|v| v.chars().any(char::is_control)) {
        return Err(format!("the value {:?} holds a control character", v));
    }
    for (i, v) in values.iter().enumerate() {
        if values[..i].contains(v) {
            return Err(format!("the value '{v}' is listed twice"));
        }
    }
    Ok(values)
}

/// An integer with an optional K, M or G (powers of two).
fn integer(text: &str) -> Result<(u64, bool), String> {
    let text = text.trim();
    let (digits, multiple) = match text.char_indices().last() {
        Some((i, 'K' | 'k')) => (&text[..i], 1u64 << 10),
        Some((i, 'M' | 'm')) => (&text[..i], 1 << 20),
        Some((i, 'G' | 'g')) => (&text[..i], 1 << 30),
        _ => (text, 1),
    };
    let n: u64 = digits
        .parse()
        .ok()
        .filter(|_| digits.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| format!("'{text}' is not a whole number (K, M, G may follow)"))?;
    let value = n.checked_mul(multiple).ok_or_else(|| format!("'{text}' is too large"))?;
    Ok((value, multiple > 1))
}

fn range(start: &str, rest: &str) -> Result<(Vec<String>, bool), String> {
    let (end, factor) = rest
        .split_once('*')
        .ok_or_else(|| "a range is START..END*FACTOR, e.g. 16K..64M*4 (the factor is missing)".to_owned())?;
    let (start, start_size) = integer(start)?;
    let (end, end_size) = integer(end)?;
    let factor: u64 = factor
        .trim()
        .parse()
        .ok()
        .filter(|f| *f >= 2)
        .ok_or_else(|| format!("the factor '{}' must be a whole number of at least 2", factor.trim()))?;
    if start == 0 || end < start {
        return Err(format!("the range must go up from a value above 0 (got {start}..{end})"));
    }
    let mut values = Vec::new();
    let mut v = start;
    while v <= end {
        values.push(v.to_string());
        if values.len() > MAX_VALUES {
            break;
        }
        match v.checked_mul(factor) {
            Some(next) => v = next,
            None => break,
        }
    }
    Ok((values, start_size || end_size))
}

/// Values of `params` as a person reads them: `SIZE=16 KiB, MODE=seq`.
pub fn point_label(params: &[Param], point: &[String]) -> String {
    params.iter().zip(point).map(|(p, v)| format!("{}={}", p.name, p.show(v))).collect::<Vec<_>>().join(", ")
}
