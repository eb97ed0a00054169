//! Separation: which append stream a user write goes to (round robin, hot
//! and cold by update interval, or F2FS's six classes).

use super::LogLayer;
use super::Separation;

impl LogLayer {
    /// The append stream of a user write to `lpn` (tagged `stream`).
    #[inline]
    pub(super) fn classify(&mut self, lpn: u64, stream: u16) -> usize {
        let logs = self.open.len();
        // Temperature 0 hot, 1 warm, 2 cold, from the update interval: the
        // writes to this layer since the page was last written, against the
        // layer's size (a page rewritten within half a capacity's worth of
        // writes is hot, one not rewritten within two is cold).
        let temperature = |layer: &mut Self| -> usize {
            let Some(last) = &mut layer.last_write else {
                return 2;
            };
            let now = layer.now as u32;
            let before = std::mem::replace(&mut last[lpn as usize], now.max(1));
            if before == 0 {
                return 2;
            }
            let interval = u64::from(now.wrapping_sub(before));
            let size = layer.layout.user_pages;
            if interval < size / 2 {
                0
            } else if interval < 2 * size {
                1
            } else {
                2
            }
        };
        match self.cfg.separation {
            Separation::None => {
                self.turn = (self.turn + 1) % logs;
                self.turn
            }
            Separation::HotCold => {
                let hot = match stream {
                    1 => true,
                    2 => false,
                    _ => temperature(self) == 0,
                };
                if hot {
                    0
                } else {
                    logs - 1
                }
            }
            Separation::F2fs => {
                let class = match stream {
                    1..=6 => {
                        let _ = temperature(self);
                        usize::from(stream - 1)
                    }
                    // Untagged user data: hot/warm/cold data.
                    _ => 3 + temperature(self),
                };
                f2fs_log(class, logs)
            }
        }
    }
}

/// The log of an f2fs class (0..6: hot, warm, cold node; hot, warm, cold
/// data) when there are `logs` append streams, as F2FS folds its six logs
/// with fewer active logs: 2 logs = node | data; 4 = hot/warm node | cold
/// node | hot/warm data | cold data; 6 = one each. Others round down to the
/// nearest of these.
pub(super) fn f2fs_log(class: usize, logs: usize) -> usize {
    let node = class < 3;
    let temp = class % 3;
    match logs {
        1 => 0,
        2 | 3 => usize::from(!node),
        4 | 5 => 2 * usize::from(!node) + usize::from(temp == 2),
        _ => class,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f2fs_folds_six_classes_onto_fewer_logs() {
        let logs_of = |n| (0..6).map(|c| f2fs_log(c, n)).collect::<Vec<_>>();
        assert_eq!(logs_of(1), [0, 0, 0, 0, 0, 0]);
        assert_eq!(logs_of(2), [0, 0, 0, 1, 1, 1]);
        assert_eq!(logs_of(4), [0, 0, 1, 2, 2, 3]);
        assert_eq!(logs_of(6), [0, 1, 2, 3, 4, 5]);
        for n in 1..=6 {
            assert!(logs_of(n).iter().all(|&l| l < n), "{n} logs");
        }
    }
}
