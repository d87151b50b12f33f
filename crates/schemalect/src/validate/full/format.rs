//! `format` as an assertion, when the caller asks for it (an annotation otherwise, as 2020-12
//! says). The common formats are checked by their RFC grammar; a format not listed here passes,
//! as the specification allows for formats an implementation does not know (`idn-hostname`,
//! whose IDNA tables this does not carry, is one).

use crate::pattern::PatternError;

mod uri;

/// True when `s` conforms to `format` (or the format is not one this checks).
pub(super) fn conforms(format: &str, s: &str) -> bool {
    match format {
        "date" => date(s),
        "time" => time(s),
        "date-time" => match s.find(['T', 't']) {
            Some(i) => date(s.get(..i).unwrap_or("")) && time(s.get(i + 1..).unwrap_or("")),
            None => false,
        },
        "duration" => duration(s),
        "email" => email(s, false),
        "idn-email" => email(s, true),
        "ipv4" => ipv4(s),
        "ipv6" => s.parse::<std::net::Ipv6Addr>().is_ok() && !s.contains('%'),
        "uuid" => uuid(s),
        "hostname" => hostname(s),
        "json-pointer" => json_pointer(s),
        "relative-json-pointer" => relative_json_pointer(s),
        "uri" => uri::reference(s, true, false),
        "uri-reference" => uri::reference(s, false, false),
        "iri" => uri::reference(s, true, true),
        "iri-reference" => uri::reference(s, false, true),
        "uri-template" => uri::template(s),
        // Valid ECMA-262 that the linear-time engine cannot run (look-around, back-references)
        // is still a valid regular expression.
        "regex" => !matches!(
            crate::pattern::Pattern::compile(s, usize::MAX),
            Err(PatternError::Syntax { .. })
        ),
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

/// RFC 5321 `Mailbox`: a dot-atom or quoted local part, `@`, a host name or an address literal
/// (`[127.0.0.1]`, `[IPv6:…]`). `idn`: RFC 6531, non-ASCII characters allowed in both parts.
fn email(s: &str, idn: bool) -> bool {
    let Some((local, domain)) = s.rsplit_once('@') else {
        return false;
    };
    let atext = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c);
    let local_ok = match local.strip_prefix('"').and_then(|l| l.strip_suffix('"')) {
        Some(quoted) => {
            let mut it = quoted.chars();
            let mut ok = true;
            while let Some(c) = it.next() {
                ok &= match c {
                    '\\' => it.next().is_some(),
                    '"' => false,
                    c => c == ' ' || c.is_ascii_graphic() || (idn && !c.is_ascii()),
                };
            }
            ok
        }
        None => {
            !local.is_empty()
                && local.split('.').all(|atom| {
                    !atom.is_empty() && atom.chars().all(|c| atext(c) || (idn && !c.is_ascii()))
                })
        }
    };
    let domain_ok = match domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        Some(literal) => match literal.strip_prefix("IPv6:") {
            Some(v6) => v6.parse::<std::net::Ipv6Addr>().is_ok(),
            None => ipv4(literal),
        },
        None if idn => {
            !domain.is_empty()
                && domain.split('.').all(|l| {
                    !l.is_empty()
                        && !l.starts_with('-')
                        && !l.ends_with('-')
                        && l.chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '-' || !c.is_ascii())
                })
        }
        None => hostname(domain),
    };
    local_ok && domain_ok
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

/// RFC 1123 host name: labels of letters, digits and inner hyphens, at most 63 characters each
/// and 253 in all, without a trailing dot. The Punycode of an `xn--` A-label is not decoded:
/// the IDNA rules on its characters are not checked.
fn hostname(s: &str) -> bool {
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

/// RFC 6901: empty, or `/`-separated tokens in which `~` is followed by `0` or `1`.
fn json_pointer(s: &str) -> bool {
    (s.is_empty() || s.starts_with('/')) && {
        let mut it = s.chars();
        let mut ok = true;
        while let Some(c) = it.next() {
            if c == '~' {
                ok &= matches!(it.next(), Some('0' | '1'));
            }
        }
        ok
    }
}

/// draft-handrews-relative-json-pointer: a non-negative integer without leading zeros, then
/// `#` or a JSON Pointer.
fn relative_json_pointer(s: &str) -> bool {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let (prefix, rest) = s.split_at(digits);
    !prefix.is_empty()
        && (prefix == "0" || !prefix.starts_with('0'))
        && (rest == "#" || json_pointer(rest))
}

/// RFC 3339 appendix A `duration`: `P` then weeks alone, or date units in the order `Y M D`
/// without gaps, then optionally `T` and time units in the order `H M S` without gaps.
fn duration(s: &str) -> bool {
    let Some(body) = s.strip_prefix('P') else {
        return false;
    };
    if let Some(weeks) = body.strip_suffix('W') {
        return !weeks.is_empty() && weeks.bytes().all(|b| b.is_ascii_digit());
    }
    let (date, time) = match body.split_once('T') {
        Some((d, t)) => (d, Some(t)),
        None => (body, None),
    };
    let run = |text: &str, units: &[u8]| -> Option<usize> {
        // The units present, as positions in `units`; they must be consecutive.
        let mut positions = Vec::new();
        let mut digits = 0;
        for b in text.bytes() {
            if b.is_ascii_digit() {
                digits += 1;
                continue;
            }
            let at = units.iter().position(|u| *u == b)?;
            if digits == 0 || positions.last().is_some_and(|p| at != p + 1) {
                return None;
            }
            positions.push(at);
            digits = 0;
        }
        (digits == 0).then_some(positions.len())
    };
    let Some(date_units) = run(date, b"YMD") else {
        return false;
    };
    match time {
        Some(t) => matches!(run(t, b"HMS"), Some(n) if n > 0),
        None => date_units > 0,
    }
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

    #[test]
    fn reference_and_pointer_formats() {
        assert!(conforms("uri", "http://user@[::1]:8080/a/b?q=1#f"));
        assert!(!conforms("uri", "//example.com/relative"));
        assert!(!conforms("uri", "http://exa mple.com"));
        assert!(conforms("uri-reference", "../a%20b?x#y"));
        assert!(!conforms("uri-reference", "a:b:c/d\\e"));
        assert!(conforms("iri", "http://ƒøø.ßår/?∂éœ=πîx#πîüx"));
        assert!(!conforms("uri", "http://ƒøø.ßår/"));
        assert!(conforms(
            "uri-template",
            "http://example.com/{term:1}/{+path*}{?q,r}"
        ));
        assert!(!conforms("uri-template", "{v:01}"));
        assert!(conforms("json-pointer", "/a~1b/~0"));
        assert!(!conforms("json-pointer", "/a~2"));
        assert!(conforms("relative-json-pointer", "0#"));
        assert!(!conforms("relative-json-pointer", "01/a"));
        assert!(conforms("duration", "P1Y2M3DT4H5M6S"));
        assert!(!conforms("duration", "P1Y2D"));
        assert!(
            conforms("regex", "(?<=a)b\\1"),
            "valid, though the engine cannot run it"
        );
        assert!(!conforms("regex", "^(abc]"));
        assert!(conforms("email", "\"joe bloggs\"@example.com"));
        assert!(!conforms("email", "joe bloggs@example.com"));
        assert!(conforms("idn-email", "실례@실례.테스트"));
        assert!(!conforms("hostname", "example."));
    }
}
