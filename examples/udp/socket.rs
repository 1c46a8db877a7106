//! A non-blocking UDP socket, optionally behind a [`Shim`] that impairs what it sends.

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::time::Duration;

use crate::shim::Shim;

/// A non-blocking UDP socket; with a shim, what it sends goes through the shim first.
#[derive(Debug)]
pub(crate) struct Socket {
    udp: UdpSocket,
    shim: Option<Shim>,
    /// Bytes of UDP payload received.
    pub(crate) received: u64,
    /// Bytes of UDP payload sent (before the shim).
    pub(crate) sent: u64,
}

impl Socket {
    /// Binds a socket to `addr` (port 0: any free port).
    pub(crate) fn bind(addr: SocketAddr, shim: Option<Shim>) -> io::Result<Self> {
        let udp = UdpSocket::bind(addr)?;
        udp.set_nonblocking(true)?;
        Ok(Socket { udp, shim, received: 0, sent: 0 })
    }

    /// The address the socket is bound to.
    pub(crate) fn local_addr(&self) -> io::Result<SocketAddr> {
        self.udp.local_addr()
    }

    /// Sends a datagram at `now`, through the shim if there is one. UDP is unreliable anyway,
    /// so a send that fails is a lost datagram.
    pub(crate) fn send(&mut self, now: Duration, to: SocketAddr, datagram: &[u8]) {
        self.sent += datagram.len() as u64;
        match &mut self.shim {
            Some(shim) => {
                shim.send(now, to, datagram);
                self.flush(now);
            }
            None => {
                let _ = self.udp.send_to(datagram, to);
            }
        }
    }

    /// Sends what the shim holds that is due at `now`.
    pub(crate) fn flush(&mut self, now: Duration) {
        if let Some(shim) = &mut self.shim {
            while let Some((to, datagram)) = shim.due(now) {
                let _ = self.udp.send_to(&datagram, to);
            }
        }
    }

    /// The next datagram waiting, if any: its length in `buf` and its sender.
    pub(crate) fn recv(&mut self, buf: &mut [u8]) -> Option<(usize, SocketAddr)> {
        // Errors other than "nothing waiting" (an ICMP "port unreachable" reported late, for
        // one) concern a datagram already gone: skip them, a bounded number of times.
        for _ in 0..64 {
            match self.udp.recv_from(buf) {
                Ok((n, from)) => {
                    self.received += n as u64;
                    return Some((n, from));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return None,
                Err(_) => continue,
            }
        }
        None
    }
}
