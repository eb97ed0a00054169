//! Writing an output file safely: never over one of the command's inputs,
//! and never half-written.
//!
//! `File::create(output)` truncates at once: `trace convert big.csv
//! big.csv` would empty its own input before reading a line of it, and a
//! failure half-way (disk full, a bad record, Ctrl-C) would leave a
//! truncated file where the previous good one was. An [`OutputFile`]
//! refuses a path that names an input (the same file, through any path or
//! link), writes to a temporary file beside the destination, and renames
//! it into place only on [`OutputFile::commit`]; dropped uncommitted, it
//! removes the temporary file and leaves the destination as it was.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Whether `a` and `b` name the same existing file (same device and
/// inode on Unix; the same canonical path elsewhere). A path that does
/// not exist is the same as nothing.
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        match (a.canonicalize(), b.canonicalize()) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        }
    }
}

/// An error when `output` is one of `inputs`: one line naming both.
pub fn check_not_input(output: &Path, inputs: &[&Path]) -> io::Result<()> {
    match inputs.iter().find(|i| same_file(output, i)) {
        Some(input) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "refusing to write over the input {}; name another output file",
                input.display()
            ),
        )),
        None => Ok(()),
    }
}

/// Temporary names taken by this process, so two outputs in one directory
/// never share one.
static NEXT_TEMP: AtomicU64 = AtomicU64::new(0);

/// A file written under a temporary name beside its destination and
/// renamed into place by [`OutputFile::commit`].
#[derive(Debug)]
pub struct OutputFile {
    file: Option<File>,
    temp: PathBuf,
    dest: PathBuf,
}

/// A new, empty temporary file beside `dest`: `.NAME.tmp-PID-N`. The
/// same directory keeps the final rename on one file system, so it is
/// atomic; `create_new` never opens a file someone else made.
fn temp_beside(dest: &Path) -> io::Result<(File, PathBuf)> {
    let name = dest.file_name().ok_or_else(|| {
        io::Error::new(io::ErrorKind::InvalidInput, "an output needs a file name")
    })?;
    let dir = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    loop {
        let n = NEXT_TEMP.fetch_add(1, Ordering::Relaxed);
        let mut temp_name = std::ffi::OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(".tmp-{}-{n}", std::process::id()));
        let temp = dir.join(temp_name);
        match File::options().write(true).create_new(true).open(&temp) {
            Ok(file) => return Ok((file, temp)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Writes `dest` (not one of `inputs`) through a writer that wants a
/// path of its own (a CSV or SVG library): `write` fills a temporary file
/// beside `dest`, which then replaces `dest`. On an error the temporary
/// file is removed and `dest` is left as it was.
pub fn write_via_temp<E: From<io::Error>>(
    dest: &Path,
    inputs: &[&Path],
    write: impl FnOnce(&Path) -> Result<(), E>,
) -> Result<(), E> {
    check_not_input(dest, inputs)?;
    let (file, temp) = temp_beside(dest)?;
    drop(file);
    let result = write(&temp).and_then(|()| {
        File::open(&temp)?.sync_all()?;
        Ok(std::fs::rename(&temp, dest)?)
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

impl OutputFile {
    /// Starts writing `dest`, which must not be any of `inputs`.
    pub fn create(dest: &Path, inputs: &[&Path]) -> io::Result<OutputFile> {
        check_not_input(dest, inputs)?;
        let (file, temp) = temp_beside(dest)?;
        Ok(OutputFile {
            file: Some(file),
            temp,
            dest: dest.to_path_buf(),
        })
    }

    /// Writes all of `bytes` to `dest` (not one of `inputs`) in one go.
    pub fn write_all_to(dest: &Path, inputs: &[&Path], bytes: &[u8]) -> io::Result<()> {
        let mut out = OutputFile::create(dest, inputs)?;
        out.write_all(bytes)?;
        out.commit()
    }

    /// The destination.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Flushes the data to disk and renames the file into place.
    pub fn commit(mut self) -> io::Result<()> {
        let file = self.file.take().expect("an OutputFile is committed once");
        file.sync_all()?;
        drop(file);
        std::fs::rename(&self.temp, &self.dest)
    }

    fn file(&mut self) -> &mut File {
        self.file.as_mut().expect("not committed")
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file().flush()
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            // Not committed: leave the destination as it was.
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("ftlsim-output-file-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn commit_replaces_and_drop_keeps_the_old_file() {
        let d = dir("commit");
        let dest = d.join("out.txt");
        std::fs::write(&dest, "old").unwrap();
        let mut out = OutputFile::create(&dest, &[]).unwrap();
        out.write_all(b"new").unwrap();
        drop(out);
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "old");
        OutputFile::write_all_to(&dest, &[], b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "new");
        let failed: Result<(), io::Error> = write_via_temp(&dest, &[], |p| {
            std::fs::write(p, "partial")?;
            Err(io::Error::other("the writer failed"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "new");
        // No temporary file left behind either way.
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1);
    }

    #[test]
    fn an_input_is_never_an_output() {
        let d = dir("input");
        let input = d.join("in.csv");
        std::fs::write(&input, "data").unwrap();
        // The same file by another path.
        let other = d.join(".").join("in.csv");
        let e = OutputFile::create(&other, &[&input]).unwrap_err();
        assert!(e.to_string().contains("in.csv"), "{e}");
        assert_eq!(std::fs::read_to_string(&input).unwrap(), "data");
        assert!(!same_file(&d.join("absent"), &d.join("absent")));
    }
}
