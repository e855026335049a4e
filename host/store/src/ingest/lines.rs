//! The bytes of a CSV as the parser sees them: line endings made one (`\r\n` and a lone `\r`
//! read as `\n`, so a row is named by its true line whatever the file's endings) and every
//! physical line bounded, so a file with a multi-gigabyte line is refused as it streams
//! instead of being held in memory whole.

use std::io::{self, Read};

/// The longest physical line a CSV may have: 4 MiB, room for tens of thousands of columns.
pub const MAX_LINE_BYTES: usize = 4 << 20;

/// A [`Read`] over a CSV's bytes with line endings made `\n` and lines bounded by
/// [`MAX_LINE_BYTES`] (the error names the line).
pub struct CsvBytes<R> {
    inner: R,
    /// Lines ended so far.
    lines: u64,
    /// Bytes of the line in progress.
    run: usize,
    /// The last byte read was a `\r` (now a `\n`): a `\n` right after it is dropped.
    after_cr: bool,
    max_line: usize,
}

impl<R: Read> CsvBytes<R> {
    /// Wrap `inner` with the standard line bound.
    pub fn new(inner: R) -> Self {
        Self::with_max_line(inner, MAX_LINE_BYTES)
    }

    /// Wrap `inner` with another line bound (tests).
    pub fn with_max_line(inner: R, max_line: usize) -> Self {
        CsvBytes { inner, lines: 0, run: 0, after_cr: false, max_line }
    }

    fn too_long(&self) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("line {} is longer than {} MiB, the most a CSV line may hold", self.lines + 1, self.max_line >> 20),
        )
    }

    /// Count the lines of a chunk already made `\n`-only, refusing an overlong one.
    fn account(&mut self, chunk: &[u8]) -> io::Result<()> {
        let mut from = 0;
        for i in memchr::memchr_iter(b'\n', chunk) {
            if self.run + (i - from) > self.max_line {
                return Err(self.too_long());
            }
            self.lines += 1;
            self.run = 0;
            from = i + 1;
        }
        self.run += chunk.len() - from;
        if self.run > self.max_line {
            return Err(self.too_long());
        }
        Ok(())
    }
}

impl<R: Read> Read for CsvBytes<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = self.inner.read(out)?;
            if n == 0 {
                return Ok(0);
            }
            let mut w = n;
            if self.after_cr || memchr::memchr(b'\r', &out[..n]).is_some() {
                // compact in place (never writes ahead of what it reads)
                w = 0;
                for r in 0..n {
                    let b = out[r];
                    if b == b'\n' && self.after_cr {
                        self.after_cr = false;
                        continue;
                    }
                    self.after_cr = b == b'\r';
                    out[w] = if b == b'\r' { b'\n' } else { b };
                    w += 1;
                }
            }
            self.account(&out[..w])?;
            if w > 0 {
                return Ok(w);
            }
            // the chunk was only the `\n` of a `\r\n`: read on
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(input: &[u8], chunk: usize) -> Vec<u8> {
        // a reader that hands out `chunk` bytes at a time, so `\r\n` splits across reads
        struct Chunks<'a>(&'a [u8], usize);
        impl Read for Chunks<'_> {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(self.1).min(out.len());
                out[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut v = Vec::new();
        CsvBytes::new(Chunks(input, chunk)).read_to_end(&mut v).unwrap();
        v
    }

    #[test]
    fn line_endings_become_one() {
        for chunk in [1, 2, 3, 64] {
            assert_eq!(through(b"a,b\r\n1,2\r\n", chunk), b"a,b\n1,2\n");
            assert_eq!(through(b"a\rb\r\rc\n\nd", chunk), b"a\nb\n\nc\n\nd");
            assert_eq!(through(b"plain\nlf\n", chunk), b"plain\nlf\n");
        }
    }

    #[test]
    fn an_overlong_line_is_refused_with_its_number() {
        let mut ok = Vec::new();
        CsvBytes::with_max_line(&b"12345\n1234\r\n"[..], 5).read_to_end(&mut ok).unwrap();
        assert_eq!(ok, b"12345\n1234\n");
        let mut v = Vec::new();
        let e = CsvBytes::with_max_line(&b"ok\r\nfine\n123456\n"[..], 5).read_to_end(&mut v).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(e.to_string().starts_with("line 3 is longer than"), "{e}");
        // no newline at all: refused once past the bound, not read to the end
        let endless = std::iter::repeat_n(b'x', 1 << 20).collect::<Vec<u8>>();
        let e = CsvBytes::with_max_line(&endless[..], 1000).read_to_end(&mut v).unwrap_err();
        assert!(e.to_string().starts_with("line 1 is longer"), "{e}");
    }
}
