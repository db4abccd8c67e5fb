//! The link emulator's process loop (`mmcc-linkemu CONFIG.json`, or `python -m
//! mmcc.testbed.linkemu CONFIG.json` through the Python extension): the link emulator of `mmcc testbed`. It opens one TUN device in
//! each of the two network namespaces the testbed created (the sender's `a`, the receiver's `b`),
//! prints `ready`, and on the line `start` on stdin begins to forward IP packets between them
//! through the scenario's bottleneck ([`crate::Direction`]): a -> b is the forward (data)
//! direction, b -> a the reverse (ACK) direction. It stops on `stop`, end of input, SIGINT or
//! SIGTERM, or when its parent dies, and then writes its statistics (JSON) atomically.
//!
//! This is the one place in mmcc where wall-clock time is the point: packets are real, so the
//! emulator reads CLOCK_MONOTONIC (through libc, never `Instant`, which the engine forbids) and
//! waits with `ppoll` at nanosecond resolution with a timer slack of 1 ns.

use mmcc_core::record::pcap::PcapWriter;
use mmcc_core::time::Time;
use crate::{Carries, Config, Lateness, Path};
use std::ffi::CString;
use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_sig: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn os_err(what: &str) -> String {
    format!("{what}: {}", std::io::Error::last_os_error())
}

fn open_file(path: &str, flags: libc::c_int) -> Result<OwnedFd, String> {
    let c = CString::new(path).map_err(|_| format!("{path}: invalid path"))?;
    // SAFETY: a NUL-terminated path; the returned descriptor is owned by OwnedFd.
    let fd = unsafe { libc::open(c.as_ptr(), flags | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(os_err(&format!("cannot open {path}")));
    }
    // SAFETY: fd is a fresh descriptor we own.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn enter_netns(fd: &OwnedFd, what: &str) -> Result<(), String> {
    // SAFETY: setns on a namespace descriptor; affects only this (single-threaded) process.
    if unsafe { libc::setns(fd.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(os_err(&format!("cannot enter the network namespace {what}")));
    }
    Ok(())
}

#[repr(C)]
struct IfReq {
    name: [libc::c_char; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

const TUNSETIFF: libc::c_ulong = 0x4004_54ca;

/// Open a TUN device (IP packets, no packet information header) called `name` in the network
/// namespace `netns`.
fn open_tun(netns: &str, name: &str) -> Result<OwnedFd, String> {
    if name.is_empty() || name.len() >= libc::IFNAMSIZ {
        return Err(format!("TUN name {name:?}: 1 to {} characters", libc::IFNAMSIZ - 1));
    }
    let ns = open_file(netns, libc::O_RDONLY)?;
    enter_netns(&ns, netns)?;
    let fd = open_file("/dev/net/tun", libc::O_RDWR | libc::O_NONBLOCK)?;
    let mut req = IfReq { name: [0; libc::IFNAMSIZ], flags: (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short, _pad: [0; 22] };
    for (d, s) in req.name.iter_mut().zip(name.bytes()) {
        *d = s as libc::c_char;
    }
    // SAFETY: TUNSETIFF reads the ifreq we own.
    if unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF as _, &mut req) } < 0 {
        return Err(os_err(&format!("cannot create TUN device {name} in {netns}")));
    }
    Ok(fd)
}

fn read_packet(fd: &OwnedFd, buf: &mut [u8]) -> Option<usize> {
    // SAFETY: read into a buffer we own, of its length.
    let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
    (n > 0).then_some(n as usize)
}

fn write_packet(fd: &OwnedFd, pkt: &[u8]) -> bool {
    // SAFETY: write from a buffer we own, of its length.
    unsafe { libc::write(fd.as_raw_fd(), pkt.as_ptr().cast(), pkt.len()) == pkt.len() as isize }
}

fn write_stats(path: &str, fwd: &Path, rev: &Path, late: &[Lateness; 2]) -> Result<(), String> {
    let json = serde_json::json!({
        "forward": fwd.stats(), "reverse": rev.stats(),
        "write_lateness": { "forward": late[0].summary(), "reverse": late[1].summary() },
    });
    let tmp = format!("{path}.tmp");
    std::fs::write(&tmp, serde_json::to_vec_pretty(&json).unwrap_or_default())
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| format!("cannot write {path}: {e}"))
}

/// Run the emulator of the configuration file at `config_path` until it is told to stop. (Over 80
/// lines: the real-time loop and the descriptors it owns from set-up to teardown, in one piece.)
pub fn run(cfg_path: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(cfg_path).map_err(|e| format!("cannot read {cfg_path}: {e}"))?;
    let cfg: Config = serde_json::from_str(&text).map_err(|e| format!("{cfg_path}: {e}"))?;
    let build = |cfg: &Config| -> Result<(Path, Path), String> {
        Ok((
            Path::new(&cfg.forward, cfg.seed, "forward", Carries::Data)?,
            Path::new(&cfg.reverse, cfg.seed, "reverse", Carries::Acks)?,
        ))
    };
    let (mut fwd, mut rev) = build(&cfg)?;
    // SAFETY: prctl and signal with constant arguments; the handler only stores an atomic.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
        libc::prctl(libc::PR_SET_TIMERSLACK, 1);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
    }
    let home = open_file("/proc/self/ns/net", libc::O_RDONLY)?;
    let tun_a = open_tun(&cfg.netns_a, &cfg.tun_a)?;
    let tun_b = open_tun(&cfg.netns_b, &cfg.tun_b)?;
    enter_netns(&home, "of the emulator")?;
    println!("ready");
    std::io::stdout().flush().map_err(|e| e.to_string())?;

    let mut t0 = monotonic_ns();
    let mut started = false;
    let mut buf = vec![0u8; 65_536];
    let mut out = Vec::new();
    let mut late = [Lateness::default(), Lateness::default()];
    let open_pcap = |p: &Option<String>| -> Result<Option<PcapWriter>, String> {
        p.as_ref().map(|p| PcapWriter::create(p).map_err(|e| format!("cannot write {p}: {e}"))).transpose()
    };
    let mut pcaps = [open_pcap(&cfg.pcap_forward)?, open_pcap(&cfg.pcap_reverse)?];
    let mut line = Vec::new();
    let stdin = 0;
    // SAFETY: stdin is non-blocking from here on; commands are read line by line.
    unsafe { libc::fcntl(stdin, libc::F_SETFL, libc::fcntl(stdin, libc::F_GETFL) | libc::O_NONBLOCK) };
    let mut stdin_open = true;
    while !STOP.load(Ordering::SeqCst) {
        let now = Time(monotonic_ns().saturating_sub(t0));
        // deliver what is due
        for (k, (dir, tun)) in [(&mut fwd, &tun_b), (&mut rev, &tun_a)].into_iter().enumerate() {
            dir.advance(now, &mut out);
            for (due, p) in out.drain(..) {
                write_packet(tun, &p);
                if started {
                    late[k].record(monotonic_ns().saturating_sub(t0).saturating_sub(due.0));
                }
            }
        }
        let due = [fwd.next_due(), rev.next_due()].into_iter().flatten().min();
        let wait_ns = due.map_or(100_000_000, |d| d.0.saturating_sub(now.0).min(100_000_000));
        let ts = libc::timespec { tv_sec: (wait_ns / 1_000_000_000) as _, tv_nsec: (wait_ns % 1_000_000_000) as _ };
        let mut fds = [
            libc::pollfd { fd: tun_a.as_raw_fd(), events: libc::POLLIN, revents: 0 },
            libc::pollfd { fd: tun_b.as_raw_fd(), events: libc::POLLIN, revents: 0 },
            libc::pollfd { fd: if stdin_open { stdin } else { -1 }, events: libc::POLLIN, revents: 0 },
        ];
        // SAFETY: ppoll over descriptors we own, with a timeout we own and no signal mask.
        let n = unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as _, &ts, std::ptr::null()) };
        if n <= 0 {
            continue;
        }
        if fds[2].revents != 0 {
            let mut chunk = [0u8; 256];
            // SAFETY: read into a buffer we own.
            let r = unsafe { libc::read(stdin, chunk.as_mut_ptr().cast(), chunk.len()) };
            if r == 0 {
                break; // the testbed closed our input: stop
            } else if r > 0 {
                line.extend_from_slice(&chunk[..r as usize]);
                while let Some(i) = line.iter().position(|&c| c == b'\n') {
                    let cmd: Vec<u8> = line.drain(..=i).collect();
                    match std::str::from_utf8(&cmd).unwrap_or("").trim() {
                        "start" if !started => {
                            started = true;
                            t0 = monotonic_ns();
                            (fwd, rev) = build(&cfg)?; // time 0 of the scenario: fresh links
                        }
                        "stop" => STOP.store(true, Ordering::SeqCst),
                        _ => {}
                    }
                }
            } else {
                stdin_open = std::io::Error::last_os_error().kind() == std::io::ErrorKind::WouldBlock;
            }
        }
        let now = Time(monotonic_ns().saturating_sub(t0));
        for ((fd, dir), pcap) in [(&tun_a, &mut fwd), (&tun_b, &mut rev)].into_iter().zip(pcaps.iter_mut()) {
            for _ in 0..256 {
                match read_packet(fd, &mut buf) {
                    Some(len) => {
                        if let (Some(w), true) = (pcap.as_mut(), started) {
                            w.write_raw(now, &buf[..len], 128);
                        }
                        dir.arrive(now, buf[..len].to_vec())
                    }
                    None => break,
                }
            }
        }
    }
    for (w, name) in pcaps.iter_mut().zip(["forward", "reverse"]) {
        if let Some(w) = w {
            w.finish().map_err(|e| format!("the {name} capture: {e}"))?;
        }
    }
    write_stats(&cfg.stats, &fwd, &rev, &late)
}

