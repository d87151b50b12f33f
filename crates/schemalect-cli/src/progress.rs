//! Standard error: per-file messages, and a progress bar when stderr is a terminal and there are
//! many files. The bar is one line redrawn in place (`[=====>    ] 1234/7616 files`) and erased
//! before any message and at the end, so messages never mix with it. Nothing else is written.

use std::io::{self, IsTerminal, Write};
use std::time::{Duration, Instant};

/// More files than this get a bar (on a terminal).
pub const BAR_THRESHOLD: usize = 50;

const BAR_WIDTH: usize = 30;
const REDRAW_EVERY: Duration = Duration::from_millis(80);

/// Standard error, shared by messages and the bar.
#[derive(Debug)]
pub struct Console {
    bar: Option<Bar>,
}

#[derive(Debug)]
struct Bar {
    total: usize,
    done: usize,
    drawn: bool,
    last: Option<Instant>,
}

impl Console {
    /// A console for `total` files; the bar is on when stderr is a terminal and `total` is large.
    pub fn new(total: usize) -> Self {
        let on = total > BAR_THRESHOLD && io::stderr().is_terminal();
        Console {
            bar: on.then_some(Bar {
                total,
                done: 0,
                drawn: false,
                last: None,
            }),
        }
    }

    /// Writes one message line (the bar is erased first and redrawn on the next step).
    pub fn message(&mut self, text: &str) {
        let mut err = io::stderr().lock();
        if let Some(bar) = &mut self.bar {
            bar.erase(&mut err);
        }
        // Nothing sensible is left to do when stderr itself fails.
        let _ = writeln!(err, "{text}");
    }

    /// One more file done.
    pub fn step(&mut self) {
        if let Some(bar) = &mut self.bar {
            bar.done += 1;
            let due = bar.last.is_none_or(|t| t.elapsed() >= REDRAW_EVERY);
            if due || bar.done == bar.total {
                bar.last = Some(Instant::now());
                let mut err = io::stderr().lock();
                let _ = write!(err, "\r{}", render(bar.done, bar.total, BAR_WIDTH));
                let _ = err.flush();
                bar.drawn = true;
            }
        }
    }

    /// Erases the bar for good.
    pub fn finish(&mut self) {
        if let Some(mut bar) = self.bar.take() {
            bar.erase(&mut io::stderr().lock());
        }
    }
}

impl Bar {
    fn erase(&mut self, err: &mut impl Write) {
        if self.drawn {
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            self.drawn = false;
            self.last = None;
        }
    }
}

/// `[=====>    ] 1234/7616 files`
pub fn render(done: usize, total: usize, width: usize) -> String {
    let filled = (done.min(total) * width)
        .checked_div(total)
        .unwrap_or(width);
    let mut bar = "=".repeat(filled);
    if filled < width {
        bar.push('>');
        bar.push_str(&" ".repeat(width - filled - 1));
    }
    format!("[{bar}] {done}/{total} files")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bar_shapes() {
        assert_eq!(render(0, 10, 10), "[>         ] 0/10 files");
        assert_eq!(render(5, 10, 10), "[=====>    ] 5/10 files");
        assert_eq!(render(10, 10, 10), "[==========] 10/10 files");
        assert_eq!(render(3, 0, 4), "[====] 3/0 files");
    }

    #[test]
    fn no_bar_for_few_files() {
        let mut c = Console::new(3);
        assert!(c.bar.is_none());
        c.step();
        c.finish();
    }
}
