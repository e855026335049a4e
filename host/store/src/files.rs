//! Opening a store's files without trusting what sits at a name. A careless operator or a
//! hostile user can leave a FIFO, a device, a directory or a symbolic link where the store
//! expects a file; a plain `open` of a FIFO blocks until a writer appears, far past any call's
//! deadline, and a symbolic link can point anywhere on the machine. Every read of a store file
//! goes through [`open_regular`]: it never blocks, never follows a final symbolic link, and
//! refuses anything that is not a regular file with an error that names no path.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Why a store entry was refused although it exists: carried as the payload of an
/// [`io::ErrorKind::InvalidData`] error so that the store's messages can say it.
pub const NOT_REGULAR: &str = "not a regular file";
/// The message of an entry that is a symbolic link (the store never follows one).
pub const SYMLINK: &str = "a symbolic link, which the store never follows";

/// Open `path` for reading: non-blocking (a FIFO opens at once and is then refused), not
/// following a final symbolic link, and only when it is a regular file.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| if e.raw_os_error() == Some(libc::ELOOP) { damaged(SYMLINK) } else { e })?;
    if !file.metadata()?.file_type().is_file() {
        return Err(damaged(NOT_REGULAR));
    }
    Ok(file)
}

/// The whole of a regular file as UTF-8 text (see [`open_regular`]).
pub fn read_string(path: &Path) -> io::Result<String> {
    let mut text = String::new();
    open_regular(path)?.read_to_string(&mut text)?;
    Ok(text)
}

/// An error for an entry that exists but is not what the store expects there.
pub fn damaged(why: &'static str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_open_and_a_fifo_does_not_block() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        assert_eq!(read_string(&file).unwrap(), "x");

        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).unwrap();
        #[allow(unsafe_code)] // mkfifo(3): the test needs a FIFO
        let made = unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
        assert_eq!(made, 0);
        // a blocking open would hang here: there is no writer
        let e = read_string(&fifo).unwrap_err();
        assert_eq!(e.to_string(), NOT_REGULAR);

        let sub = dir.path().join("d");
        std::fs::create_dir(&sub).unwrap();
        assert_eq!(read_string(&sub).unwrap_err().to_string(), NOT_REGULAR);

        let link = dir.path().join("l");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert_eq!(read_string(&link).unwrap_err().to_string(), SYMLINK);
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
        assert_eq!(read_string(&dangling).unwrap_err().to_string(), SYMLINK);

        assert_eq!(read_string(&dir.path().join("missing")).unwrap_err().kind(), io::ErrorKind::NotFound);
    }
}
