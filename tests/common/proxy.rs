//! A loopback TCP proxy in front of a server, which a test pauses (bytes held both ways, as a
//! server stopped with SIGSTOP holds them) or cuts (every connection dropped and new ones
//! refused, as a killed server does). It runs on a thread and runtime of its own, so that what
//! it does does not wait on the test's own runtime.

use std::net::{Ipv4Addr, SocketAddr};
use std::thread::JoinHandle;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Run,
    Paused,
    Cut,
}

/// The proxy; dropping it cuts every connection and stops its thread.
pub struct Proxy {
    port: u16,
    mode: watch::Sender<Mode>,
    thread: Option<JoinHandle<()>>,
}

impl Proxy {
    /// A proxy on a free port of 127.0.0.1 forwarding to `target` (a port of 127.0.0.1).
    pub fn start(target: u16) -> Proxy {
        let listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind the proxy");
        listener.set_nonblocking(true).expect("non-blocking");
        let port = listener.local_addr().expect("port").port();
        let (mode, watched) = watch::channel(Mode::Run);
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
            runtime.block_on(async move {
                accept(TcpListener::from_std(listener).expect("listener"), target, watched).await;
            });
        });
        Proxy { port, mode, thread: Some(thread) }
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Holds every byte from now on, both ways, until [`Proxy::resume`].
    pub fn pause(&self) {
        self.mode.send_replace(Mode::Paused);
    }

    pub fn resume(&self) {
        self.mode.send_replace(Mode::Run);
    }

    /// Drops every connection and refuses new ones, for good.
    pub fn cut(&self) {
        self.mode.send_replace(Mode::Cut);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.cut();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn accept(listener: TcpListener, target: u16, mode: watch::Receiver<Mode>) {
    let mut cut = mode.clone();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((client, _)) = accepted else { continue };
                let modes = mode.clone();
                tokio::spawn(async move {
                    let Ok(server) = TcpStream::connect(SocketAddr::from((Ipv4Addr::LOCALHOST, target))).await else {
                        return;
                    };
                    let (client_read, client_write) = client.into_split();
                    let (server_read, server_write) = server.into_split();
                    tokio::join!(
                        copy(client_read, server_write, modes.clone()),
                        copy(server_read, client_write, modes)
                    );
                });
            }
            changed = cut.wait_for(|m| *m == Mode::Cut) => {
                let _ = changed;
                // The listener is dropped here (new connections refused); the connections' tasks
                // see the cut themselves and drop their sockets.
                return;
            }
        }
    }
}

/// Copies one direction, holding bytes while paused and dropping both halves when cut.
async fn copy(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    mut mode: watch::Receiver<Mode>,
) {
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let n = tokio::select! {
            read = from.read(&mut buffer) => match read {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            },
            _ = mode.wait_for(|m| *m == Mode::Cut) => return,
        };
        match mode.wait_for(|m| *m != Mode::Paused).await.map(|m| *m) {
            Ok(Mode::Run) => {}
            _ => return,
        }
        if to.write_all(&buffer[..n]).await.is_err() {
            return;
        }
    }
}
