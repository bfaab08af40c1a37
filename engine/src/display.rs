//! How a row's values are written for a person to read: one place for each
//! display rule that several faces share.

/// An argument vector as one would type it in a POSIX shell, each word
/// quoted where a shell would need it. For display only: Vernier runs an
/// argument vector as it is and never hands this string to a shell.
pub fn quote_argv(argv: &[String]) -> String {
    argv.iter()
        // A word a shell cannot hold (a NUL byte) is shown Rust-escaped.
        .map(|a| shlex::try_quote(a).map_or_else(|_| format!("{a:?}"), |q| q.into_owned()))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC N2: the Command column reads as one would type it.
    #[test]
    fn words_are_quoted_only_where_a_shell_needs_it() {
        let argv: Vec<String> =
            ["./matmul", "512", "a b", "it's", "", "x\0y"].iter().map(|w| (*w).to_owned()).collect();
        assert_eq!(quote_argv(&argv), r#"./matmul 512 'a b' "it's" '' "x\0y""#);
    }
}
