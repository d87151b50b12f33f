//! `format` as an assertion, when the caller asks for it (an annotation otherwise, as 2020-12
//! says). The common formats are checked by their RFC grammar; a format not listed here passes,
//! as the specification allows for formats an implementation does not know.

/// True when `s` conforms to `format` (or the format is not one this checks).
pub(super) fn conforms(format: &str, s: &str) -> bool {
    match format {
        "date" => date(s),
        "time" => time(s),
        "date-time" => match s.find(['T', 't']) {
            Some(i) => date(s.get(..i).unwrap_or("")) && time(s.get(i + 1..).unwrap_or("")),
            None => false,
        },
        "email" => email(s),
        "ipv4" => ipv4(s),
        "ipv6" => s.parse::<std::net::Ipv6Addr>().is_ok() && !s.contains('%'),
        "uuid" => uuid(s),
        "hostname" => hostname(s),
        "json-pointer" => crate::pointer::Pointer::parse(s).is_some(),
        _ => true,
    }
}

fn digits(s: &str, n: usize) -> Option<u32> {
    (s.len() == n && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// RFC 3339 `full-date`, with the days of each month (leap years included).
fn date(s: &str) -> bool {
    let mut parts = s.split('-');
    let (Some(y), Some(m), Some(d), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let (Some(y), Some(m), Some(d)) = (digits(y, 4), digits(m, 2), digits(d, 2)) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// RFC 3339 `full-time`: `hh:mm:ss[.frac](Z|±hh:mm)`; a leap second only at 23:59:60 UTC.
fn time(s: &str) -> bool {
    let (clock, offset_minutes) = if let Some(c) = s.strip_suffix(['Z', 'z']) {
        (c, Some(0i64))
    } else {
        match s.rfind(['+', '-']) {
            Some(i) => {
                let (c, off) = s.split_at(i);
                let sign = if off.starts_with('-') { -1 } else { 1 };
                let mut hm = off.get(1..).unwrap_or("").split(':');
                match (
                    hm.next().and_then(|h| digits(h, 2)),
                    hm.next().and_then(|m| digits(m, 2)),
                    hm.next(),
                ) {
                    (Some(h), Some(m), None) if h < 24 && m < 60 => {
                        (c, Some(sign * i64::from(h * 60 + m)))
                    }
                    _ => return false,
                }
            }
            None => return false,
        }
    };
    let Some(offset) = offset_minutes else {
        return false;
    };
    let (hms, frac) = clock.split_once('.').unwrap_or((clock, "0"));
    if frac.is_empty() || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let mut p = hms.split(':');
    let (Some(h), Some(m), Some(sec), None) = (p.next(), p.next(), p.next(), p.next()) else {
        return false;
    };
    let (Some(h), Some(m), Some(sec)) = (digits(h, 2), digits(m, 2), digits(sec, 2)) else {
        return false;
    };
    if h > 23 || m > 59 || sec > 60 {
        return false;
    }
    if sec == 60 {
        let utc = (i64::from(h * 60 + m) - offset).rem_euclid(24 * 60);
        return utc == 23 * 60 + 59;
    }
    true
}

fn email(s: &str) -> bool {
    match s.rsplit_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !local.starts_with('.')
                && !local.ends_with('.')
                && !local.contains("..")
                && !domain.is_empty()
                && (hostname(domain) || domain.starts_with('['))
        }
        None => false,
    }
}

fn ipv4(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.bytes().all(|b| b.is_ascii_digit())
                && (p.len() == 1 || !p.starts_with('0'))
                && p.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}

fn uuid(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn hostname(s: &str) -> bool {
    let s = s.strip_suffix('.').unwrap_or(s);
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

#[cfg(test)]
mod tests {
    use super::conforms;

    #[test]
    fn common_formats() {
        assert!(conforms("date", "2020-02-29"));
        assert!(!conforms("date", "2021-02-29"));
        assert!(conforms("date-time", "1963-06-19T08:30:06.283185Z"));
        assert!(!conforms("date-time", "1963-06-19 08:30:06Z"));
        assert!(conforms("time", "23:59:60Z"));
        assert!(!conforms("time", "22:59:60Z"));
        assert!(conforms("ipv4", "192.168.0.1"));
        assert!(!conforms("ipv4", "192.168.0.01"));
        assert!(conforms("email", "joe.bloggs@example.com"));
        assert!(!conforms("email", "2962"));
        assert!(conforms("uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d16380"));
        assert!(conforms("unknown-format", "anything"));
    }
}
