//! The `Profile::from_*` constructors of the library: the formats and options of the command line.

use std::io::Read;

use crate::error::Result;
use crate::profile::Profile;

use super::load::{load_path, load_reader};
use super::options::{FormatChoice, LoadOptions};

/// Loading a profile, for the library: the formats and options of the command line.
///
/// ```
/// use flametui::profile::Profile;
///
/// let p = Profile::from_folded("main;work 3\nmain 1\n")?;
/// assert_eq!(p.tree.total(), 4);
/// let perf = Profile::from_perf_script(
///     "app 1 1.0: 250000 cpu-clock: \n\t4005d6 work+0x16 (/bin/app)\n\t400620 main+0x9 (/bin/app)\n\n",
/// )?;
/// assert_eq!(perf.tree.total(), 250_000);
/// # Ok::<(), flametui::Error>(())
/// ```
impl Profile {
    /// Reads a profile of any format from `reader` (detected from its content, gzip too)
    /// with `opts`, `name` naming it in errors.
    ///
    /// # Errors
    /// As [`load_reader`]; a differential folded file ([`Error::DiffAsSide`](crate::Error::DiffAsSide)), whose two
    /// columns are two profiles: [`load_reader`] gives both.
    pub fn from_reader<R: Read + Send>(
        reader: R,
        name: &str,
        opts: &LoadOptions,
    ) -> Result<Profile> {
        load_reader(reader, name, opts)?.into_side()
    }

    /// Reads the profile at `path` (`-` for standard input), a perf.data recording too.
    ///
    /// # Errors
    /// As [`Profile::from_reader`].
    pub fn from_path(path: &str, opts: &LoadOptions) -> Result<Profile> {
        load_path(path, opts)?.into_side()
    }

    /// Folded stacks (`a;b;c COUNT` lines).
    ///
    /// # Errors
    /// As [`Profile::from_reader`].
    pub fn from_folded(text: &str) -> Result<Profile> {
        let opts = LoadOptions {
            format: FormatChoice::Folded,
            ..LoadOptions::default()
        };
        Profile::from_reader(text.as_bytes(), "folded", &opts)
    }

    /// `perf script` output.
    ///
    /// # Errors
    /// As [`Profile::from_reader`].
    pub fn from_perf_script(text: &str) -> Result<Profile> {
        let opts = LoadOptions {
            format: FormatChoice::Perf,
            ..LoadOptions::default()
        };
        Profile::from_reader(text.as_bytes(), "perf script", &opts)
    }

    /// SystemTap `print_stack` output (off-CPU stacks marked with a leading `---`).
    ///
    /// # Errors
    /// As [`Profile::from_reader`].
    pub fn from_stap(text: &str) -> Result<Profile> {
        let opts = LoadOptions {
            format: FormatChoice::Stap,
            ..LoadOptions::default()
        };
        Profile::from_reader(text.as_bytes(), "SystemTap", &opts)
    }
}
