//! Attachments: fitting a 4 000 × 3 000 screenshot under the API's limits (decode, scale,
//! encode), and a Read of pages of a 100-page PDF through the binary, from the model's
//! call to the next request.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::bail;
use rein_testkit::{FakeServer, Scenario, reply, text, tool_use};
use serde_json::json;

use crate::{ms, percentile, rein};

pub(crate) fn rows(bin: &Path, work: &Path, home: &Path) -> anyhow::Result<Vec<(String, String, String)>> {
    let fit = |png: &[u8]| -> Duration {
        let mut times: Vec<Duration> = (0..5)
            .map(|_| {
                let t = Instant::now();
                let fitted = rein_media::fit_image(png);
                std::hint::black_box(fitted.is_ok());
                t.elapsed()
            })
            .collect();
        times.sort();
        percentile(&times, 0.5)
    };
    let screenshot = rein_media::sample_screenshot(4000, 3000);
    let noise = rein_media::sample_png(4000, 3000);
    let (shot_time, noise_time) = (fit(&screenshot), fit(&noise));

    let pdf = work.join("manual.pdf");
    std::fs::write(&pdf, rein_media::sample_pdf(100))?;
    let mut gaps = Vec::new();
    for _ in 0..5 {
        let read = tool_use("Read", json!({"file_path": pdf.display().to_string(), "pages": "41-60"}));
        let server = FakeServer::start(Scenario::new([reply([read]), reply([text("done")])]))?;
        let r = crate::run(rein(bin, work, home, Some(&server))?.args(["-p", "read it"]))?;
        let reqs = server.requests();
        if !r.ok || reqs.len() != 2 {
            bail!("the PDF read session failed");
        }
        if let Some(done) = reqs[0].response_done_at {
            gaps.push(reqs[1].received_at.duration_since(done));
        }
    }
    gaps.sort();
    Ok(vec![
        (
            format!(
                "attach a 4 000 × 3 000 image, fitted under the limits (median of 5): a screenshot ({} KB PNG) / noise \
                 ({} KB, the worst case)",
                screenshot.len() / 1000,
                noise.len() / 1000
            ),
            format!("{} / {}", ms(shot_time), ms(noise_time)),
            "≤ 150 ms".into(),
        ),
        (
            "Read of 20 pages of a 100-page PDF: call → next request (median of 5)".into(),
            ms(percentile(&gaps, 0.5)),
            "≤ 50 ms".into(),
        ),
    ])
}
