//! An image fitted under the API's limits: sent as it is when it already fits (no
//! decoding), else scaled so its long edge is at most [`MAX_EDGE`] and re-encoded — PNG
//! when that is small enough, JPEG otherwise.

use std::io::Cursor;

use base64::Engine as _;
use image::{DynamicImage, ImageFormat, ImageReader};
use rein_protocol::{ContentBlock, ImageSource};

use crate::ImageError;

/// The longest edge sent (Claude Code fits images within 2 000 × 2 000).
pub const MAX_EDGE: u32 = 2000;
/// The largest image sent, before base64 (the API takes 5 MB encoded).
pub const MAX_IMAGE_BYTES: usize = 3_750_000;

/// An image ready to send, and what was done to it.
#[derive(Debug, Clone)]
pub struct Fitted {
    pub block: ContentBlock,
    /// Its size as sent.
    pub width: u32,
    pub height: u32,
    /// Its size as it was.
    pub original: (u32, u32),
    /// How many bytes are sent (before base64).
    pub bytes: usize,
}

impl Fitted {
    pub fn resized(&self) -> bool {
        self.original != (self.width, self.height)
    }
}

/// Fit the image in `bytes` (any of png, jpeg, gif, webp; the format is read from the
/// bytes, not a name).
pub fn fit_image(bytes: &[u8]) -> Result<Fitted, ImageError> {
    let reader =
        ImageReader::new(Cursor::new(bytes)).with_guessed_format().map_err(|e| ImageError::Unknown(e.to_string()))?;
    let format = reader.format().ok_or_else(|| ImageError::Unknown("unrecognised data".into()))?;
    let media_type = match format {
        ImageFormat::Png => "image/png",
        ImageFormat::Jpeg => "image/jpeg",
        ImageFormat::Gif => "image/gif",
        ImageFormat::WebP => "image/webp",
        other => return Err(ImageError::Unknown(format!("{other:?}"))),
    };
    let (w, h) = reader.into_dimensions().map_err(|e| ImageError::Decode(e.to_string()))?;
    if w <= MAX_EDGE && h <= MAX_EDGE && bytes.len() <= MAX_IMAGE_BYTES {
        return Ok(fitted(bytes.to_vec(), media_type, (w, h), (w, h)));
    }
    let img = image::load_from_memory_with_format(bytes, format).map_err(|e| ImageError::Decode(e.to_string()))?;
    let img = if w > MAX_EDGE || h > MAX_EDGE { scaled(&img)? } else { img };
    let size = (img.width(), img.height());
    // A photograph stays a JPEG; a screenshot is tried as PNG first (sharp text).
    if format != ImageFormat::Jpeg {
        let png = encode_png(&img)?;
        if png.len() <= MAX_IMAGE_BYTES {
            return Ok(fitted(png, "image/png", size, (w, h)));
        }
    }
    for quality in [85, 70, 50] {
        let jpeg = encode_jpeg(&img, quality)?;
        if jpeg.len() <= MAX_IMAGE_BYTES {
            return Ok(fitted(jpeg, "image/jpeg", size, (w, h)));
        }
    }
    Err(ImageError::Encode(format!("{}×{} is still over {} KB as a JPEG", size.0, size.1, MAX_IMAGE_BYTES / 1000)))
}

/// A `w` × `h` PNG with a busy pattern, as a screenshot compresses (for tests and
/// benchmarks).
pub fn sample_png(w: u32, h: u32) -> Vec<u8> {
    let img =
        image::RgbImage::from_fn(w, h, |x, y| image::Rgb([(x % 256) as u8, (y % 256) as u8, ((x ^ y) % 256) as u8]));
    let mut out = Vec::new();
    let _ = DynamicImage::ImageRgb8(img).write_to(&mut Cursor::new(&mut out), ImageFormat::Png);
    out
}

/// A `w` × `h` PNG drawn like a screenshot of an editor: a light page, a darker side bar
/// and lines of glyph-sized marks (for benchmarks: it compresses as screenshots do).
pub fn sample_screenshot(w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbImage::from_fn(w, h, |x, y| {
        if x < w / 6 {
            return image::Rgb([37, 37, 38]);
        }
        let (line, row) = (y / 24, y % 24);
        let (glyph, col) = (x / 9, x % 9);
        // A cheap hash decides which cells hold a glyph, and the line's length.
        let hash = (line.wrapping_mul(2_654_435_761) ^ glyph.wrapping_mul(40_503)).wrapping_mul(2_246_822_519);
        let line_end = w / 6 + (line.wrapping_mul(7919) % (w * 5 / 6));
        if (4..18).contains(&row) && col < 7 && x < line_end && hash % 5 != 0 && (hash >> 8) % 3 != 0 {
            image::Rgb([(hash >> 16) as u8 / 2, 60, 120])
        } else {
            image::Rgb([250, 250, 250])
        }
    });
    let mut out = Vec::new();
    let _ = DynamicImage::ImageRgb8(img).write_to(&mut Cursor::new(&mut out), ImageFormat::Png);
    out
}

fn fitted(bytes: Vec<u8>, media_type: &str, size: (u32, u32), original: (u32, u32)) -> Fitted {
    let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
    Fitted {
        block: ContentBlock::Image { source: ImageSource::Base64 { media_type: media_type.to_string(), data } },
        width: size.0,
        height: size.1,
        original,
        bytes: bytes.len(),
    }
}

/// `img` scaled to fit within [`MAX_EDGE`] × [`MAX_EDGE`], keeping its proportions
/// (fast_image_resize: SIMD bilinear, ten times the image crate's speed here).
fn scaled(img: &DynamicImage) -> Result<DynamicImage, ImageError> {
    let (w, h) = (img.width(), img.height());
    let ratio = f64::from(MAX_EDGE) / f64::from(w.max(h));
    let (nw, nh) = (((f64::from(w) * ratio).round() as u32).max(1), ((f64::from(h) * ratio).round() as u32).max(1));
    // The resizer works on 8-bit RGB(A); other layouts are converted first.
    let src = match img {
        DynamicImage::ImageRgb8(_) | DynamicImage::ImageRgba8(_) => img.clone(),
        other if other.color().has_alpha() => DynamicImage::ImageRgba8(other.to_rgba8()),
        other => DynamicImage::ImageRgb8(other.to_rgb8()),
    };
    let mut dst = DynamicImage::new(nw, nh, src.color());
    let options = fast_image_resize::ResizeOptions::new()
        .resize_alg(fast_image_resize::ResizeAlg::Convolution(fast_image_resize::FilterType::Bilinear));
    fast_image_resize::Resizer::new()
        .resize(&src, &mut dst, &options)
        .map_err(|e| ImageError::Encode(format!("scaling failed: {e}")))?;
    Ok(dst)
}

fn encode_png(img: &DynamicImage) -> Result<Vec<u8>, ImageError> {
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    let mut out = Vec::new();
    let encoder = PngEncoder::new_with_quality(&mut out, CompressionType::Fast, FilterType::Adaptive);
    img.write_with_encoder(encoder).map_err(|e| ImageError::Encode(e.to_string()))?;
    Ok(out)
}

fn encode_jpeg(img: &DynamicImage, quality: u8) -> Result<Vec<u8>, ImageError> {
    let mut out = Vec::new();
    let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality);
    // JPEG has no alpha.
    DynamicImage::ImageRgb8(img.to_rgb8())
        .write_with_encoder(encoder)
        .map_err(|e| ImageError::Encode(e.to_string()))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_image_is_sent_as_it_is() {
        let bytes = sample_png(40, 30);
        let f = fit_image(&bytes).unwrap();
        assert!(!f.resized());
        let ContentBlock::Image { source: ImageSource::Base64 { media_type, data } } = &f.block else { panic!() };
        assert_eq!(media_type, "image/png");
        assert_eq!(base64::engine::general_purpose::STANDARD.decode(data).unwrap(), bytes);
    }

    #[test]
    fn a_large_screenshot_is_scaled_to_the_long_edge_and_stays_under_the_byte_limit() {
        let f = fit_image(&sample_png(4000, 3000)).unwrap();
        assert_eq!((f.width, f.height), (2000, 1500));
        assert_eq!(f.original, (4000, 3000));
        assert!(f.bytes <= MAX_IMAGE_BYTES, "{}", f.bytes);
        let ContentBlock::Image { source: ImageSource::Base64 { data, .. } } = &f.block else { panic!() };
        let sent = base64::engine::general_purpose::STANDARD.decode(data).unwrap();
        let back = image::load_from_memory(&sent).unwrap();
        assert_eq!((back.width(), back.height()), (2000, 1500));
    }

    #[test]
    fn what_is_not_an_image_is_refused_clearly() {
        let e = fit_image(b"%PDF-1.4 not an image").unwrap_err();
        assert!(matches!(e, ImageError::Unknown(_)), "{e}");
        let e = fit_image(&[0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n', 0, 0]).unwrap_err();
        assert!(matches!(e, ImageError::Decode(_)), "{e}");
    }
}
