//! What a row's build says about optimisation (SPEC A18, the course's C.5):
//! `-O0` is a diagnostic, never a result — nobody ships it, and it flatters
//! memory-bound code by drowning it in instruction overhead. A compiled
//! program whose build names no level is read as the compilers' default,
//! which for gcc, clang and rustc is no optimisation.

/// The optimisation a build text states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Optimisation {
    /// A level above none (`-O2`, `-Os`, `/O2`, `--release`, `opt-level=3` …).
    Optimised,
    /// Built without optimisation: `-O0`, `/Od`, `opt-level=0`, a debug build.
    Unoptimised,
    /// A compiler is named but no level: its default, no optimisation.
    Unstated,
    /// No compiler is named (an interpreter, a shipped binary): nothing to say.
    NotCompiled,
}

/// Compilers whose default is no optimisation, by the name they are run as
/// (a version suffix such as `g++-12` or `clang-17` is allowed).
const COMPILERS: [&str; 13] =
    ["gcc", "g++", "cc", "c++", "clang", "clang++", "icc", "icpc", "icx", "icpx", "nvcc", "gfortran", "rustc"];

impl Optimisation {
    /// Reads a build text such as `g++ -O2 -march=native` or `cargo build
    /// --release`. Of several levels the last counts, as it does for gcc
    /// and clang.
    pub fn of(build: &str) -> Self {
        let mut level = None;
        let mut compiled = false;
        let mut cargo = false;
        let tokens: Vec<&str> = build.split(|c: char| c.is_whitespace() || c == ',' || c == ';').collect();
        for (i, raw) in tokens.iter().enumerate() {
            let token = raw.trim_matches(|c: char| matches!(c, '(' | ')' | '"' | '\'' | '`'));
            let name = token.rsplit(['/', '\\']).next().unwrap_or(token).trim_end_matches(".exe");
            let bare = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.').trim_end_matches('-');
            if COMPILERS.contains(&name) || COMPILERS.contains(&bare) || name == "cl" {
                compiled = true;
            }
            if name == "cargo" {
                compiled = true;
                cargo = true;
            }
            let next = tokens.get(i + 1).map(|t| t.trim_matches(|c: char| !c.is_ascii_alphanumeric()));
            if let Some(found) = level_of(token, next) {
                level = Some(found);
            }
        }
        // cargo builds the dev profile (opt-level 0) unless told otherwise.
        match level {
            Some(level) => level,
            None if compiled && cargo => Optimisation::Unoptimised,
            None if compiled => Optimisation::Unstated,
            None => Optimisation::NotCompiled,
        }
    }

    /// True for a build that is a diagnostic, not a result (A18).
    pub fn is_diagnostic(self) -> bool {
        matches!(self, Optimisation::Unoptimised | Optimisation::Unstated)
    }

    /// Why a row with this build is a diagnostic, in words.
    pub fn diagnostic_reason(self) -> Option<&'static str> {
        match self {
            Optimisation::Unoptimised => Some("built without optimisation (-O0)"),
            Optimisation::Unstated => {
                Some("built with no stated optimisation level (gcc, clang and rustc then default to none)")
            }
            Optimisation::Optimised | Optimisation::NotCompiled => None,
        }
    }
}

/// The level one token states, if it states one; `next` is the token after
/// it (for `opt-level 3` and `-C opt-level=0`).
fn level_of(token: &str, next: Option<&str>) -> Option<Optimisation> {
    let lower = token.to_ascii_lowercase();
    let level = |zero: bool| Some(if zero { Optimisation::Unoptimised } else { Optimisation::Optimised });
    if let Some(rest) = token.strip_prefix("-O") {
        return match rest {
            "0" => level(true),
            "" | "1" | "2" | "3" | "4" | "s" | "z" | "g" | "fast" => level(false),
            _ => None,
        };
    }
    // MSVC: /Od is none, /O1 /O2 /Ox are levels.
    if let Some(rest) = token.strip_prefix("/O") {
        return match rest {
            "d" => level(true),
            "1" | "2" | "x" | "s" | "t" => level(false),
            _ => None,
        };
    }
    if let Some(value) = lower.strip_prefix("opt-level=").or_else(|| (lower == "opt-level").then_some(next?)) {
        return level(value.trim_matches(|c: char| !c.is_ascii_alphanumeric()) == "0");
    }
    match lower.as_str() {
        "--release" | "release" | "-release" => level(false),
        "debug" | "--debug" | "dev" => level(true),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::Optimisation::{self, *};

    // SPEC A18: -O0 and a compiler with no level are diagnostics; a level,
    // a release build or no compiler at all are not.
    #[test]
    fn builds_are_read_for_their_optimisation() {
        let cases = [
            ("g++ -O2 -std=c++17", Optimised),
            ("clang++ -O0 -g", Unoptimised),
            ("gcc -O0 -O3", Optimised),
            ("gcc -O3 -O0", Unoptimised),
            ("g++-12 main.cpp", Unstated),
            ("/usr/bin/clang-17 -march=native", Unstated),
            ("cl.exe /Od", Unoptimised),
            ("cl /O2", Optimised),
            ("cargo build", Unoptimised),
            ("cargo build --release", Optimised),
            (
                "rustc 1.95.0 (59807616e 2026-04-14) — release build (opt-level 3) (Vernier's built-in kernel)",
                Optimised,
            ),
            ("rustc -C opt-level=0", Unoptimised),
            ("python3.11", NotCompiled),
            ("node 20, V8 JIT", NotCompiled),
            ("-Ofast", Optimised),
            ("the vendor's binary, as shipped", NotCompiled),
        ];
        for (build, want) in cases {
            assert_eq!(Optimisation::of(build), want, "{build}");
        }
        assert!(Unstated.is_diagnostic() && Unoptimised.is_diagnostic());
        assert!(!Optimised.is_diagnostic() && !NotCompiled.is_diagnostic());
    }
}
