//! Colours for charts whose series must stay apart: `distinct(n)` gives n
//! colours, none repeated, however many variants a chart draws.
//!
//! A fixed list repeats once a chart has more series than entries (an
//! experiment grid of 37 variants drew nine of them in the same grey), so
//! beyond the ten Tableau colours the palette is generated: hues evenly
//! spaced around the OKLCH circle, at three lightness levels so that
//! neighbours differ in lightness as well as hue. OKLCH is used
//! rather than HSL because equal steps in it look like equal steps: HSL's
//! yellows and greens crowd together while its blues spread apart.

use plotters::style::RGBColor;

/// Tableau 10: distinct to most eyes, and familiar from other plotting
/// libraries; used as-is up to ten series.
const TABLEAU10: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Lightness levels of the generated palette: dark, middle, light enough
/// to tell apart but dark enough to read on white.
const LIGHTNESS: [f64; 3] = [0.48, 0.63, 0.76];

/// `n` colours, pairwise distinct.
pub fn distinct(n: usize) -> Vec<RGBColor> {
    if n <= TABLEAU10.len() {
        return TABLEAU10[..n].to_vec();
    }
    // Consecutive series (the variants one panel shows) take hues far
    // apart: hue slots are visited in steps of about 0.38 of the circle
    // (the golden angle), a step coprime with n so that every slot is used
    // once. Lightness follows the slot, not the series, so that hues next
    // to each other on the circle always differ in lightness too; a step
    // that is no multiple of 3 gives consecutive series different
    // lightness as well.
    let mut step = ((n as f64 * 0.382).round() as usize).max(1);
    while gcd(step, n) != 1 || step.is_multiple_of(3) {
        step += 1;
    }
    (0..n)
        .map(|i| {
            let slot = (i * step) % n;
            // The last slot neighbours slot 0 as well as the one before it.
            let level = if n % 3 == 1 && slot == n - 1 {
                1
            } else {
                slot % LIGHTNESS.len()
            };
            let hue = 360.0 * slot as f64 / n as f64;
            oklch(LIGHTNESS[level], 0.13, hue)
        })
        .collect()
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// An sRGB colour from OKLCH (lightness 0..1, chroma, hue in degrees);
/// out-of-gamut channels are clamped.
fn oklch(l: f64, c: f64, hue_degrees: f64) -> RGBColor {
    let (a, b) = (
        c * hue_degrees.to_radians().cos(),
        c * hue_degrees.to_radians().sin(),
    );
    // OKLab to linear sRGB (Björn Ottosson's matrices).
    let l_ = l + 0.396_337_777_4 * a + 0.215_803_757_3 * b;
    let m_ = l - 0.105_561_345_8 * a - 0.063_854_172_8 * b;
    let s_ = l - 0.089_484_177_5 * a - 1.291_485_548_0 * b;
    let (l3, m3, s3) = (l_.powi(3), m_.powi(3), s_.powi(3));
    let r = 4.076_741_662_1 * l3 - 3.307_711_591_3 * m3 + 0.230_969_929_2 * s3;
    let g = -1.268_438_004_6 * l3 + 2.609_757_401_1 * m3 - 0.341_319_396_5 * s3;
    let bl = -0.004_196_086_3 * l3 - 0.703_418_614_7 * m3 + 1.707_614_701_0 * s3;
    RGBColor(srgb(r), srgb(g), srgb(bl))
}

/// A linear-light channel as an 8-bit sRGB value.
fn srgb(x: f64) -> u8 {
    let x = x.clamp(0.0, 1.0);
    let v = if x <= 0.003_130_8 {
        12.92 * x
    } else {
        1.055 * x.powf(1.0 / 2.4) - 0.055
    };
    (v * 255.0).round() as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn distance(a: RGBColor, b: RGBColor) -> f64 {
        let d = |x: u8, y: u8| f64::from(x) - f64::from(y);
        (d(a.0, b.0).powi(2) + d(a.1, b.1).powi(2) + d(a.2, b.2).powi(2)).sqrt()
    }

    #[test]
    fn no_colour_repeats_and_neighbours_stay_apart() {
        // Up to 40 series (pcstream's grid has 37); more stay distinct but
        // come closer, and the charts name every bar on its axis anyway.
        for n in 1..=40 {
            let colors = distinct(n);
            assert_eq!(colors.len(), n);
            for i in 0..n {
                for j in i + 1..n {
                    // 20 of 441 (the RGB cube's diagonal): a difference
                    // one sees side by side; neighbours in the list, which
                    // often sit side by side in a chart, much more.
                    let min = if j == i + 1 { 60.0 } else { 20.0 };
                    let d = distance(colors[i], colors[j]);
                    assert!(d >= min, "n {n}: colours {i} and {j} are {d:.0} apart");
                }
            }
        }
    }

    #[test]
    fn colours_read_on_white() {
        // No generated colour so light that a bar disappears on white.
        for c in distinct(40) {
            let luma = 0.299 * f64::from(c.0) + 0.587 * f64::from(c.1) + 0.114 * f64::from(c.2);
            assert!(luma < 215.0, "{c:?}");
        }
    }
}
