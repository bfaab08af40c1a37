//! A built-in kernel as a row's command names it (`vernier bench --kernel
//! NAME [--size N] [--tile N]`): the words written into notebook.ron and
//! read back from it. Running one is the instrument's
//! (`vernier_instrument::kernels`).

/// Which kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelKind {
    /// Sequential walk over a working set.
    Seq,
    /// Dependent pointer chase over a single random cycle.
    Chase,
    /// Matrix multiply, loop order i, j, p.
    MatmulNaive,
    /// Matrix multiply, loop order i, k, j.
    MatmulIkj,
    /// Matrix multiply, tiled.
    MatmulBlocked,
    /// Fixed register-only arithmetic, for the thermal canary.
    Canary,
}

impl KernelKind {
    /// Every kernel with its command-line name.
    pub const ALL: [(&'static str, KernelKind); 6] = [
        ("seq", KernelKind::Seq),
        ("chase", KernelKind::Chase),
        ("matmul-naive", KernelKind::MatmulNaive),
        ("matmul-ikj", KernelKind::MatmulIkj),
        ("matmul-blocked", KernelKind::MatmulBlocked),
        ("canary", KernelKind::Canary),
    ];

    /// Looks a kernel up by its command-line name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, k)| *k)
    }

    /// The command-line name.
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|(_, k)| *k == self).map_or("?", |(n, _)| n)
    }
}

/// A kernel and its parameters, as the user asked for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelSpec {
    /// Which kernel.
    pub kind: KernelKind,
    /// Working set in bytes (`seq`, `chase`) or matrix dimension (matmul).
    pub size: Option<u64>,
    /// Tile edge for `matmul-blocked`.
    pub tile: Option<u64>,
}

/// Default working set of `seq` and `chase`: 64 MiB, past every cache.
pub const DEFAULT_WORKING_SET: u64 = 64 * 1024 * 1024;
/// Default matrix dimension, as in the course's matmul lab.
pub const DEFAULT_MATMUL_N: u64 = 512;
/// Default tile edge of `matmul-blocked`.
pub const DEFAULT_TILE: u64 = 64;

impl KernelSpec {
    /// The row's `Command`: how to run this again from the command line.
    pub fn argv(&self) -> Vec<String> {
        let mut argv = vec!["vernier".to_owned(), "bench".into(), "--kernel".into(), self.kind.name().into()];
        if let Some(size) = self.size {
            argv.extend(["--size".into(), size.to_string()]);
        }
        if let Some(tile) = self.tile {
            argv.extend(["--tile".into(), tile.to_string()]);
        }
        argv
    }

    /// Reads back exactly what [`KernelSpec::argv`] writes (`vernier bench
    /// --kernel NAME [--size N] [--tile N]`, the program under any folder);
    /// `None` for anything else, so a row's command is never half-understood.
    pub fn from_argv(argv: &[String]) -> Option<Self> {
        let program = argv.first()?;
        let base = program.rsplit(['/', '\\']).next().unwrap_or(program);
        if base != "vernier" || argv.get(1).is_none_or(|a| a != "bench") {
            return None;
        }
        let (mut kind, mut size, mut tile) = (None, None, None);
        let mut rest = argv.get(2..)?.iter();
        while let Some(flag) = rest.next() {
            let value = rest.next()?;
            match flag.as_str() {
                "--kernel" => kind = Some(KernelKind::from_name(value)?),
                "--size" => size = Some(value.parse().ok()?),
                "--tile" => tile = Some(value.parse().ok()?),
                _ => return None,
            }
        }
        Some(Self { kind: kind?, size, tile })
    }
}
