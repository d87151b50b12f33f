//! The URI formats: `uri`, `uri-reference` (RFC 3986), `iri`, `iri-reference` (RFC 3987, the
//! same grammar with non-ASCII characters allowed where RFC 3986 has unreserved ones) and
//! `uri-template` (RFC 6570, level 4).

/// True when `s` is a URI (`absolute`) or a URI reference; with `iri`, an IRI or IRI reference.
pub(super) fn reference(s: &str, absolute: bool, iri: bool) -> bool {
    let (rest, fragment) = s.split_once('#').unwrap_or((s, ""));
    let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
    if !chars(fragment, ":@/?", iri) || !chars(query, ":@/?", iri) {
        return false;
    }
    // A scheme ends at the first `:`, when that comes before any `/`; a `:` there that does
    // not end a scheme is a `:` in the first segment of a relative reference, which is invalid.
    let first_segment = rest.split('/').next().unwrap_or("");
    let hier = match first_segment.split_once(':') {
        Some((scheme, _)) => {
            let valid = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
            match rest.split_once(':') {
                Some((_, hier)) if valid => hier,
                _ => return false,
            }
        }
        None if absolute => return false,
        None => rest,
    };
    match hier.strip_prefix("//") {
        Some(after) => {
            let (authority_text, path) = after.find('/').map_or((after, ""), |i| after.split_at(i));
            authority(authority_text, iri) && chars(path, ":@/", iri)
        }
        None => chars(hier, ":@/", iri),
    }
}

/// `[ userinfo "@" ] host [ ":" port ]`.
fn authority(s: &str, iri: bool) -> bool {
    let (userinfo, hostport) = match s.split_once('@') {
        Some((u, h)) => (Some(u), h),
        None => (None, s),
    };
    if userinfo.is_some_and(|u| !chars(u, ":", iri)) || hostport.contains('@') {
        return false;
    }
    let (host, port) = match hostport.strip_prefix('[') {
        Some(literal) => {
            let Some((inside, after)) = literal.split_once(']') else {
                return false;
            };
            if !ip_literal(inside) {
                return false;
            }
            match after.strip_prefix(':') {
                Some(port) => ("", port),
                None if after.is_empty() => ("", ""),
                None => return false,
            }
        }
        None => hostport.split_once(':').unwrap_or((hostport, "")),
    };
    chars(host, "", iri) && port.bytes().all(|b| b.is_ascii_digit())
}

/// `IPv6address / IPvFuture`, inside the brackets.
fn ip_literal(s: &str) -> bool {
    if let Some(future) = s.strip_prefix(['v', 'V']) {
        return match future.split_once('.') {
            Some((version, rest)) => {
                !version.is_empty()
                    && version.bytes().all(|b| b.is_ascii_hexdigit())
                    && !rest.is_empty()
                    && rest
                        .chars()
                        .all(|c| unreserved(c, false) || sub_delim(c) || c == ':')
            }
            None => false,
        };
    }
    s.parse::<std::net::Ipv6Addr>().is_ok()
}

fn unreserved(c: char, iri: bool) -> bool {
    c.is_ascii_alphanumeric() || "-._~".contains(c) || (iri && ucschar(c))
}

fn sub_delim(c: char) -> bool {
    "!$&'()*+,;=".contains(c)
}

/// RFC 3987 `ucschar` (and `iprivate`, which only queries may hold: close enough for a check).
fn ucschar(c: char) -> bool {
    let u = u32::from(c);
    u >= 0xA0 && !(0xFDD0..=0xFDEF).contains(&u) && u & 0xFFFE != 0xFFFE
}

/// True when `it` starts with two hexadecimal digits (after a `%`), which it consumes.
fn hex_pair(it: &mut std::str::Chars<'_>) -> bool {
    matches!((it.next(), it.next()), (Some(a), Some(b)) if a.is_ascii_hexdigit() && b.is_ascii_hexdigit())
}

/// True when every character of `s` is unreserved, a sub-delimiter, one of `extra`, or part of
/// a percent-encoded octet.
fn chars(s: &str, extra: &str, iri: bool) -> bool {
    let mut it = s.chars();
    while let Some(c) = it.next() {
        let ok = match c {
            '%' => hex_pair(&mut it),
            c => unreserved(c, iri) || sub_delim(c) || extra.contains(c),
        };
        if !ok {
            return false;
        }
    }
    true
}

/// RFC 6570: literals and `{…}` expressions with an optional operator and a list of varspecs.
pub(super) fn template(s: &str) -> bool {
    let mut rest = s;
    loop {
        let Some((literal, after)) = rest.split_once('{') else {
            return literals(rest);
        };
        let Some((expr, after)) = after.split_once('}') else {
            return false;
        };
        if !literals(literal) || !expression(expr) {
            return false;
        }
        rest = after;
    }
}

fn literals(s: &str) -> bool {
    let mut it = s.chars();
    while let Some(c) = it.next() {
        let ok = match c {
            '%' => hex_pair(&mut it),
            c => !c.is_control() && !" \"<>\\^`{|}".contains(c),
        };
        if !ok {
            return false;
        }
    }
    true
}

fn expression(s: &str) -> bool {
    let list = s
        .strip_prefix(|c: char| "+#./;?&=,!@|".contains(c))
        .unwrap_or(s);
    list.split(',').all(varspec)
}

/// `varname [ ":" max-length / "*" ]`: `max-length` is 1 to 9999 without a leading zero, a
/// `varname` is `varchar *( ["."] varchar )`.
fn varspec(s: &str) -> bool {
    let name = match s.split_once(':') {
        Some((name, len)) => {
            let ok = (1..=4).contains(&len.len())
                && !len.starts_with('0')
                && len.bytes().all(|b| b.is_ascii_digit());
            if !ok {
                return false;
            }
            name
        }
        None => s.strip_suffix('*').unwrap_or(s),
    };
    !name.is_empty()
        && name
            .split('.')
            .all(|part| !part.is_empty() && varchars(part))
}

fn varchars(s: &str) -> bool {
    let mut it = s.chars();
    while let Some(c) = it.next() {
        let ok = match c {
            '%' => hex_pair(&mut it),
            c => c.is_ascii_alphanumeric() || c == '_',
        };
        if !ok {
            return false;
        }
    }
    true
}
