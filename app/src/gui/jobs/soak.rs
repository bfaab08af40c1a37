//! A soak file read, analysed and downsampled off the UI thread, so the
//! window only draws it.

use std::path::{Path, PathBuf};

use vernier_engine::soak::file;

use super::super::Done;
use super::super::io::{Follow, Job};
use super::super::{SHIPPED_SOAK, plots::SoakView};

/// Reads the soak at `path` (`None`: the shipped synthetic one).
pub struct ReadSoak {
    /// The soak file.
    pub path: Option<PathBuf>,
}

impl Job for ReadSoak {
    fn run(self: Box<Self>, _: &mut Follow) -> Done {
        Done::Soak(read_soak(self.path.as_deref()).map(Box::new))
    }
}

fn read_soak(path: Option<&Path>) -> Result<SoakView, String> {
    let shipped = Path::new("datasets/thermal-soak.csv");
    let (title, data) = match path {
        Some(p) => (p.display().to_string(), file::read(p).map_err(|e| e.to_string())?),
        None => {
            (shipped.display().to_string(), file::parse(SHIPPED_SOAK.as_bytes(), shipped).map_err(|e| e.to_string())?)
        }
    };
    Ok(SoakView::new(title, &data))
}
