//! What a server writes passes through here before the protocol's main loop reads it:
//! each message's headers are read and its `Content-Length` checked, so that a server
//! that announces an enormous message ends its own connection (and is said to have
//! stopped) instead of making rein allocate it.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};

/// The largest message a server may send (a workspace's symbols fit many times over).
pub(crate) const MAX_MESSAGE: usize = 64 << 20;
/// The longest header line (`Content-Length: …`, `Content-Type: …`).
const MAX_HEADER_LINE: usize = 1024;

/// The server's output as the main loop may read it: only whole messages within the limit.
pub(crate) fn checked(server: impl AsyncRead + Unpin + Send + 'static, name: String) -> DuplexStream {
    let (mut to_loop, from_server) = tokio::io::duplex(64 << 10);
    tokio::spawn(async move {
        let mut input = BufReader::new(server);
        loop {
            match next(&mut input).await {
                Ok(Some((headers, body))) => {
                    if to_loop.write_all(&headers).await.is_err() || to_loop.write_all(&body).await.is_err() {
                        break;
                    }
                }
                Ok(None) => break,
                Err(why) => {
                    tracing::warn!(server = %name, %why, "a language server's message was refused; its connection ends");
                    break;
                }
            }
        }
    });
    from_server
}

/// Why a server's output was refused.
#[derive(Debug, thiserror::Error)]
enum FrameError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("the output ended inside a message's headers")]
    Cut,
    #[error("a header line too long")]
    LongLine,
    #[error("too many header lines")]
    ManyLines,
    #[error("a bad Content-Length: {0}")]
    BadLength(String),
    #[error("a message of {0} bytes (at most {MAX_MESSAGE})")]
    TooLarge(usize),
    #[error("a message without a Content-Length")]
    NoLength,
}

/// The next message (its headers as they came, and its body); `None` at the end.
async fn next(input: &mut (impl tokio::io::AsyncBufRead + Unpin)) -> Result<Option<(Vec<u8>, Vec<u8>)>, FrameError> {
    let mut headers = Vec::new();
    let mut length = None;
    loop {
        let mut line = Vec::new();
        let n = (&mut *input).take(MAX_HEADER_LINE as u64).read_until(b'\n', &mut line).await?;
        if n == 0 {
            return if headers.is_empty() { Ok(None) } else { Err(FrameError::Cut) };
        }
        if !line.ends_with(b"\n") {
            return Err(FrameError::LongLine);
        }
        headers.extend_from_slice(&line);
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        if text.is_empty() {
            break;
        }
        if let Some((name, value)) = text.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            let n: usize = value.trim().parse().map_err(|_| FrameError::BadLength(value.trim().to_string()))?;
            if n > MAX_MESSAGE {
                return Err(FrameError::TooLarge(n));
            }
            length = Some(n);
        }
        if headers.len() > 16 * MAX_HEADER_LINE {
            return Err(FrameError::ManyLines);
        }
    }
    let Some(length) = length else { return Err(FrameError::NoLength) };
    let mut body = vec![0u8; length];
    input.read_exact(&mut body).await?;
    Ok(Some((headers, body)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn whole_messages_pass_and_an_enormous_one_ends_the_connection() {
        let good = b"Content-Length: 2\r\n\r\n{}Content-Length: 3\r\nContent-Type: x\r\n\r\n[1]".to_vec();
        let mut out = Vec::new();
        checked(std::io::Cursor::new(good.clone()), "t".into()).read_to_end(&mut out).await.unwrap();
        assert_eq!(out, good);
        let huge = b"Content-Length: 2\r\n\r\n{}Content-Length: 35184372088832\r\n\r\n".to_vec();
        let mut out = Vec::new();
        checked(std::io::Cursor::new(huge), "t".into()).read_to_end(&mut out).await.unwrap();
        assert_eq!(out, b"Content-Length: 2\r\n\r\n{}", "the first message only, then the end");
    }
}
