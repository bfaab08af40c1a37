//! The few OS calls the store needs, one concern per module, each with its
//! Linux, macOS and Windows side: they sit here, below the store, rather
//! than with the instrument's platform code above it.

pub mod fs;
pub mod lock_file;
pub mod process_info;
