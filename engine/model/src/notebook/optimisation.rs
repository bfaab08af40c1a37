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

/// Build tools that compile with whatever flags they are given or their
/// files set: a build through one that states no level states none (A18,
/// "make" alone says nothing of -O2).
const BUILD_TOOLS: [&str; 4] = ["make", "gmake", "ninja", "meson"];

impl Optimisation {
    /// Reads a build text such as `g++ -O2 -march=native`, `make
    /// CFLAGS=-O0` or `cargo build --release`. Only flags count, never a
    /// word of prose ("debug info", "the dev board"). An optimisation flag
    /// (`-O2`, `/Od`, `opt-level=0`, also inside `CFLAGS=` or `RUSTFLAGS=`)
    /// outranks a build profile (`--release`, `CMAKE_BUILD_TYPE=Debug`); of
    /// several flags the last counts, as it does for gcc and clang.
    pub fn of(build: &str) -> Self {
        let mut flag = None;
        let mut profile = None;
        let mut compiled = false;
        let mut cargo = false;
        let tokens: Vec<&str> = build
            .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | '"' | '\'' | '`'))
            .filter(|t| !t.is_empty())
            .collect();
        for (i, &token) in tokens.iter().enumerate() {
            let name = token.rsplit(['/', '\\']).next().unwrap_or(token).trim_end_matches(".exe");
            let bare = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.').trim_end_matches('-');
            // A build tool only as the command itself: "make" is a word of prose too.
            let command = i == 0 || tokens[i - 1] == "&&";
            if COMPILERS.contains(&name)
                || COMPILERS.contains(&bare)
                || (command && BUILD_TOOLS.contains(&name))
                || name == "cl"
                || name == "cmake"
            {
                compiled = true;
            }
            if name == "cargo" {
                compiled = true;
                cargo = true;
            }
            // `CFLAGS=-O0`, `-DCMAKE_BUILD_TYPE=Debug`: the value is read too.
            let value = token.split_once('=').map_or(token, |(_, v)| v);
            let next = tokens.get(i + 1).copied();
            if let Some(found) = flag_level(token, next).or_else(|| flag_level(value, None)) {
                flag = Some(found);
            }
            if let Some(found) = profile_level(token) {
                profile = Some(found);
            }
        }
        // cargo builds the dev profile (opt-level 0) unless told otherwise.
        match flag.or(profile) {
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

/// The warning given when a run is measured, imported or typed with
/// `build` (A18: said at once, not only at the audit), or `None` for a
/// build that is a result.
pub fn build_warning(build: &str) -> Option<String> {
    Optimisation::of(build).diagnostic_reason().map(|why| {
        format!(
            "A18: {why} — a diagnostic, never a result; the report leaves it out of its results, comparisons and charts"
        )
    })
}

fn level(zero: bool) -> Option<Optimisation> {
    Some(if zero { Optimisation::Unoptimised } else { Optimisation::Optimised })
}

/// The level an optimisation flag states, if `token` is one; `next` is the
/// token after it (for `-C opt-level 3`).
fn flag_level(token: &str, next: Option<&str>) -> Option<Optimisation> {
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
    let lower = token.to_ascii_lowercase();
    let lower = lower.strip_prefix("-c").unwrap_or(&lower);
    let value = lower.strip_prefix("opt-level=").or_else(|| (lower == "opt-level").then_some(next?))?;
    level(value.trim_matches(|c: char| !c.is_ascii_alphanumeric()) == "0")
}

/// The level a build profile flag states: cargo's `--release`, CMake's
/// `CMAKE_BUILD_TYPE` (Debug, or an empty type, builds without
/// optimisation).
fn profile_level(token: &str) -> Option<Optimisation> {
    if token == "--release" || token == "--profile=release" {
        return level(false);
    }
    let (_, kind) = token.split_once("CMAKE_BUILD_TYPE=")?;
    level(!matches!(kind.to_ascii_lowercase().as_str(), "release" | "relwithdebinfo" | "minsizerel"))
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
            // Prose is not a flag; a flag inside a variable is.
            ("g++ -O2 -g (with debug info)", Optimised),
            ("g++ -O2 on the dev board", Optimised),
            ("clang, release 17", Unstated),
            ("make CFLAGS=-O0", Unoptimised),
            ("make CFLAGS='-O0 -g'", Unoptimised),
            ("RUSTFLAGS='-C opt-level=0' cargo build --release", Unoptimised),
            ("cmake -DCMAKE_BUILD_TYPE=Debug", Unoptimised),
            ("cmake -DCMAKE_BUILD_TYPE=Release", Optimised),
            ("cmake ..", Unstated),
            // A build tool with no flags states no level (issue 48 item 8).
            ("make", Unstated),
            ("make -j4 matmul", Unstated),
            ("ninja -C build", Unstated),
            ("make CFLAGS=-O2", Optimised),
            ("./configure && make", Unstated),
            ("the binary as the vendor's make ships it", NotCompiled),
        ];
        for (build, want) in cases {
            assert_eq!(Optimisation::of(build), want, "{build}");
        }
        assert!(Unstated.is_diagnostic() && Unoptimised.is_diagnostic());
        assert!(!Optimised.is_diagnostic() && !NotCompiled.is_diagnostic());
    }
}
