//! Lines from a child's stdout or stderr, read so that no line can stop the reading.
//!
//! `tokio_util`'s `LinesCodec` fails on a line that is too long or not UTF-8, and a framed
//! reader that has failed once yields nothing more: one bad line would end the reading of a
//! process that is still alive. This codec turns such a line into [`Line::TooLong`] or
//! [`Line::NotUtf8`] (its length only, never its bytes) and goes on with the next one.

use tokio_util::bytes::{Buf, BytesMut};
use tokio_util::codec::Decoder;

/// One line of a child's output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    Text(String),
    /// A line longer than the limit: skipped. Its length in bytes.
    TooLong(usize),
    /// A line that is not UTF-8: skipped. Its length in bytes.
    NotUtf8(usize),
}

impl Line {
    /// Why a skipped line was skipped, for the seat's `runtime_error`; `None` for text.
    pub fn skipped(&self) -> Option<String> {
        match self {
            Line::Text(_) => None,
            Line::TooLong(n) => Some(format!("a line of {n} bytes, longer than the limit")),
            Line::NotUtf8(n) => Some(format!("a line of {n} bytes that is not UTF-8")),
        }
    }
}

/// Splits on `\n` (a `\r` before it is dropped); lines over `max` bytes are skipped, never
/// buffered whole.
#[derive(Debug)]
pub struct LineCodec {
    max: usize,
    /// Where to look for the next `\n` (what is before it was searched already).
    searched: usize,
    /// Bytes of an over-long line thrown away so far.
    discarding: Option<usize>,
}

impl LineCodec {
    pub fn new(max: usize) -> Self {
        LineCodec {
            max,
            searched: 0,
            discarding: None,
        }
    }

    fn line(&self, raw: &[u8]) -> Line {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.len() > self.max {
            return Line::TooLong(raw.len());
        }
        match std::str::from_utf8(raw) {
            Ok(s) => Line::Text(s.to_string()),
            Err(_) => Line::NotUtf8(raw.len()),
        }
    }
}

impl Decoder for LineCodec {
    type Item = Line;
    type Error = std::io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Line>, Self::Error> {
        loop {
            let newline = buf[self.searched..]
                .iter()
                .position(|b| *b == b'\n')
                .map(|i| i + self.searched);
            if let Some(thrown) = self.discarding {
                return Ok(match newline {
                    Some(i) => {
                        buf.advance(i + 1);
                        self.discarding = None;
                        self.searched = 0;
                        Some(Line::TooLong(thrown + i))
                    }
                    None => {
                        self.discarding = Some(thrown + buf.len());
                        buf.clear();
                        self.searched = 0;
                        None
                    }
                });
            }
            match newline {
                Some(i) => {
                    let raw = buf.split_to(i + 1);
                    self.searched = 0;
                    return Ok(Some(self.line(&raw[..i])));
                }
                None if buf.len() > self.max => {
                    // Too long already: throw it away as it comes, up to its end.
                    self.discarding = Some(0);
                }
                None => {
                    self.searched = buf.len();
                    return Ok(None);
                }
            }
        }
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<Line>, Self::Error> {
        if let Some(line) = self.decode(buf)? {
            return Ok(Some(line));
        }
        self.searched = 0;
        if let Some(thrown) = self.discarding.take() {
            return Ok(Some(Line::TooLong(thrown)));
        }
        if buf.is_empty() {
            return Ok(None);
        }
        let raw = buf.split();
        Ok(Some(self.line(&raw)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds the input in pieces of `chunk` bytes, as a pipe delivers it, then ends it.
    fn read_all(input: Vec<u8>, max: usize, chunk: usize) -> Vec<Line> {
        let mut codec = LineCodec::new(max);
        let mut buf = BytesMut::new();
        let mut out = Vec::new();
        for piece in input.chunks(chunk) {
            buf.extend_from_slice(piece);
            while let Some(line) = codec.decode(&mut buf).unwrap() {
                out.push(line);
            }
        }
        while let Some(line) = codec.decode_eof(&mut buf).unwrap() {
            out.push(line);
        }
        out
    }

    #[test]
    fn bad_lines_are_skipped_and_reading_goes_on() {
        let mut input = b"first\r\n".to_vec();
        input.extend(b"\xff\xfe not utf8\n");
        input.extend(vec![b'x'; 100]);
        input.push(b'\n');
        input.extend("zoë\nlast without newline".as_bytes());
        for chunk in [1, 7, 64, 1000] {
            assert_eq!(
                read_all(input.clone(), 50, chunk),
                vec![
                    Line::Text("first".into()),
                    Line::NotUtf8(11),
                    Line::TooLong(100),
                    Line::Text("zoë".into()),
                    Line::Text("last without newline".into()),
                ],
                "chunks of {chunk}"
            );
        }
    }

    #[test]
    fn an_over_long_line_is_never_buffered_whole() {
        let mut codec = LineCodec::new(10);
        let mut buf = BytesMut::from(&[b'y'; 64][..]);
        assert_eq!(codec.decode(&mut buf).unwrap(), None);
        assert!(buf.is_empty(), "thrown away as it comes");
        buf.extend_from_slice(b"yyyy\nok\n");
        assert_eq!(codec.decode(&mut buf).unwrap(), Some(Line::TooLong(68)));
        assert_eq!(
            codec.decode(&mut buf).unwrap(),
            Some(Line::Text("ok".into()))
        );
        // Cut off at the end of the stream.
        let mut buf = BytesMut::from(&[b'z'; 30][..]);
        assert_eq!(codec.decode(&mut buf).unwrap(), None);
        assert_eq!(codec.decode_eof(&mut buf).unwrap(), Some(Line::TooLong(30)));
        assert_eq!(codec.decode_eof(&mut buf).unwrap(), None);
    }
}
