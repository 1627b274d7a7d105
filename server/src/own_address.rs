//! Whether an address is this server's own: the webhooks' and the agents' egress proxy's one
//! rule for never knocking on the console's door.

use std::net::SocketAddr;

/// `addr` is the server listening at `own`: the same address, or loopback on its port when it
/// listens on loopback or on every address.
pub fn is_own(addr: &SocketAddr, own: SocketAddr) -> bool {
    addr.port() == own.port()
        && (addr.ip() == own.ip()
            || ((own.ip().is_loopback() || own.ip().is_unspecified()) && addr.ip().is_loopback()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_on_the_port_is_a_loopback_or_wildcard_servers_own() {
        let at = |s: &str| s.parse::<SocketAddr>().unwrap();
        let own = at("127.0.0.1:3000");
        assert!(is_own(&at("127.0.0.1:3000"), own) && is_own(&at("[::1]:3000"), own));
        assert!(!is_own(&at("127.0.0.1:3001"), own));
        assert!(is_own(&at("127.0.0.2:3000"), at("0.0.0.0:3000")));
        assert!(!is_own(&at("127.0.0.1:3000"), at("10.0.0.5:3000")));
    }
}
