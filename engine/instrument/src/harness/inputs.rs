//! A command's fixed inputs (SPEC E19; the course's C.7: "fixed seed, fixed
//! input size, fixed file, all three recorded"). Vernier reads what it can
//! see in the command's own arguments — a `--seed` or a `--size` — and
//! keeps what the student states with `bench --inputs`; it never guesses
//! what an argument without such a name means. A built-in kernel states
//! its own inputs (`Kernel::inputs`); files named as arguments are hashed
//! with the program (`argument files`).

/// The argument names read as inputs, and what each is.
const NAMED: [(&str, &str); 3] = [("--seed", "seed"), ("--size", "input size"), ("--input-size", "input size")];

/// Characters of one value kept: an input's name, not a file's contents.
const MAX_VALUE_CHARS: usize = 80;

/// The inputs of a command run as `argv`, with what the student stated;
/// `None` when neither says anything.
pub fn command_inputs(argv: &[String], stated: Option<&str>) -> Option<String> {
    let seen: Vec<String> =
        NAMED.iter().filter_map(|&(flag, name)| value_of(argv, flag).map(|v| format!("{name} {v}"))).collect();
    let parts: Vec<String> = [
        (!seen.is_empty()).then(|| format!("{} (read from its arguments)", seen.join(", "))),
        stated.map(str::trim).filter(|s| !s.is_empty()).map(|s| format!("{s} (as stated)")),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// What the student stated of the inputs `recorded` for a command run as
/// `argv` (the inverse of `command_inputs`), so a rerun of the row (an
/// extension) states them again; `None` when nothing was stated.
pub fn stated_inputs(argv: &[String], recorded: &str) -> Option<String> {
    let body = recorded.strip_suffix(" (as stated)")?;
    match command_inputs(argv, None) {
        Some(seen) => body.strip_prefix(&format!("{seen}; ")).map(str::to_owned),
        None => Some(body.to_owned()),
    }
}

/// The value given to `flag` in `argv`, as `--flag VALUE` or `--flag=VALUE`
/// (the program's own arguments only, never the program's name).
fn value_of(argv: &[String], flag: &str) -> Option<String> {
    let args = argv.get(1..)?;
    let value = args.iter().enumerate().find_map(|(i, word)| match word.strip_prefix(flag) {
        Some("") => args.get(i + 1).map(String::as_str),
        Some(rest) => rest.strip_prefix('='),
        None => None,
    })?;
    Some(value.chars().take(MAX_VALUE_CHARS).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    // SPEC E19: what was stated is found again in what was recorded, with
    // or without what the arguments named; a kernel's or an unstated
    // row's inputs state nothing.
    #[test]
    fn the_stated_part_is_found_again() {
        let both = argv(&["./sort", "--seed", "7"]);
        let recorded = command_inputs(&both, Some("words.txt; 1 MB")).expect("inputs");
        assert_eq!(stated_inputs(&both, &recorded).as_deref(), Some("words.txt; 1 MB"));
        let plain = argv(&["./sort"]);
        let recorded = command_inputs(&plain, Some("words.txt")).expect("inputs");
        assert_eq!(stated_inputs(&plain, &recorded).as_deref(), Some("words.txt"));
        let seen = command_inputs(&both, None).expect("inputs");
        assert_eq!(stated_inputs(&both, &seen), None);
        assert_eq!(stated_inputs(&plain, "the 4 MiB array (Vernier's kernel)"), None);
    }

    // SPEC E19: a seed and a size are read where the arguments name them,
    // in either form; a statement is kept as stated; nothing is guessed.
    #[test]
    fn inputs_are_read_where_named_and_kept_as_stated() {
        let both = argv(&["./sort", "--seed", "7", "--size=1000000"]);
        assert_eq!(
            command_inputs(&both, None).as_deref(),
            Some("seed 7, input size 1000000 (read from its arguments)")
        );
        assert_eq!(
            command_inputs(&argv(&["./sort", "--seed=7"]), Some(" data/graph.bin ")).as_deref(),
            Some("seed 7 (read from its arguments); data/graph.bin (as stated)")
        );
        assert_eq!(command_inputs(&argv(&["./sort", "-n", "5", "--seeds", "3"]), None), None);
        assert_eq!(command_inputs(&argv(&["--seed"]), Some("")), None, "the program's name is not an argument");
        assert_eq!(command_inputs(&argv(&["./a", "--seed"]), None), None, "a flag with no value");
    }
}
