"""The shared-memory manager of the "file_system" sharing strategy (run as a
script, ``python -S _shm_manager.py FD``, with FD a listening Unix socket
it inherits).

Processes connect to it and send the name of every named segment they
create. A segment normally unlinks its own name when its last reference
goes; what the manager catches is a process that dies holding references
(killed, crashed). When every connection has closed, i.e. every process of
the tree that used it is gone, it unlinks the names still present and exits.
"""

import os
import selectors
import signal
import socket
import sys
import time

# Names of segments already unlinked are forgotten in batches of this many.
_PRUNE_EVERY = 4096
# Seconds to wait for the first connection.
_FIRST_CLIENT_WAIT = 60


def _unlink(name):
    try:
        os.unlink("/dev/shm" + name)
    except OSError:
        pass


def _alive(name):
    return os.path.exists("/dev/shm" + name)


def serve(listener):
    names = set()
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    clients = 0
    seen_a_client = False
    started = time.monotonic()
    while not seen_a_client or clients > 0:
        events = selector.select(timeout=None if seen_a_client else 1.0)
        if not seen_a_client and not events and time.monotonic() - started > _FIRST_CLIENT_WAIT:
            break  # the process that started it died before connecting
        for key, _ in events:
            if key.fileobj is listener:
                connection, _ = listener.accept()
                selector.register(connection, selectors.EVENT_READ)
                clients += 1
                seen_a_client = True
                continue
            message = key.fileobj.recv(4096)
            if message:
                name = message.decode("utf-8", "replace")
                if name.startswith("/ember_fs_") and "/" not in name[1:]:
                    names.add(name)
                    if len(names) % _PRUNE_EVERY == 0:
                        names = {n for n in names if _alive(n)}
                continue
            selector.unregister(key.fileobj)
            key.fileobj.close()
            clients -= 1
    for name in names:
        _unlink(name)


def main():
    # Interrupts meant for the script (Ctrl-C reaches the whole process
    # group) must not stop the manager before the script's processes end.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    listener = socket.socket(fileno=int(sys.argv[1]))
    serve(listener)


if __name__ == "__main__":
    main()
