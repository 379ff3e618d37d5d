"""Key-value stores through which processes find each other (torch.distributed's
Store, TCPStore, FileStore, HashStore, PrefixStore).

Values are bytes (str values are encoded); ``add`` keeps an integer counter
stored as its decimal text; ``get`` and ``wait`` block until the keys exist or
the store's timeout passes. The TCP protocol carries only lengths, keys and
bytes: nothing received is ever unpickled.
"""

import datetime
import fcntl
import os
import socket
import struct
import threading
import time

__all__ = ["Store", "HashStore", "FileStore", "TCPStore", "PrefixStore"]

_DEFAULT_TIMEOUT = datetime.timedelta(seconds=300)


def _seconds(timeout):
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    return float(timeout)


def _bytes(value):
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"Store values must be str or bytes, got {type(value).__name__}")


class Store:
    """The interface: set/get/add/compare_set/wait/check/delete_key/num_keys, with a timeout."""

    def __init__(self, timeout=_DEFAULT_TIMEOUT):
        self._timeout = _seconds(timeout)

    @property
    def timeout(self):
        return datetime.timedelta(seconds=self._timeout)

    def set_timeout(self, timeout):
        self._timeout = _seconds(timeout)

    def _timeout_error(self, keys, seconds):
        return RuntimeError(f"{type(self).__name__}: timed out after {seconds:g} s waiting for key(s) "
                            f"{', '.join(repr(k) for k in keys)}")


class _Table:
    """A dict of bytes with blocking reads, shared by HashStore and the TCP server."""

    def __init__(self):
        self.data = {}
        self.changed = threading.Condition()

    def set(self, key, value):
        with self.changed:
            self.data[key] = value
            self.changed.notify_all()

    def add(self, key, delta):
        with self.changed:
            value = int(self.data.get(key, b"0")) + delta
            self.data[key] = str(value).encode()
            self.changed.notify_all()
            return value

    def compare_set(self, key, expected, desired):
        with self.changed:
            current = self.data.get(key)
            if (current is None and expected == b"") or current == expected:
                self.data[key] = desired
                self.changed.notify_all()
                return desired
            return expected if current is None else current

    def wait(self, keys, seconds):
        """True once every key exists; False after `seconds` (<= 0: no limit)."""
        deadline = time.monotonic() + seconds if seconds > 0 else None
        with self.changed:
            while not all(k in self.data for k in keys):
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self.changed.wait(left)
            return True

    def delete(self, key):
        with self.changed:
            return self.data.pop(key, None) is not None


class HashStore(Store):
    """A store inside one process (threads share it)."""

    def __init__(self, timeout=_DEFAULT_TIMEOUT):
        super().__init__(timeout)
        self._table = _Table()

    def set(self, key, value):
        self._table.set(key, _bytes(value))

    def get(self, key):
        self.wait([key])
        return self._table.data[key]

    def add(self, key, amount):
        return self._table.add(key, int(amount))

    def compare_set(self, key, expected_value, desired_value):
        return self._table.compare_set(key, _bytes(expected_value), _bytes(desired_value))

    def wait(self, keys, timeout=None):
        seconds = self._timeout if timeout is None else _seconds(timeout)
        if not self._table.wait(list(keys), seconds):
            raise self._timeout_error(keys, seconds)

    def check(self, keys):
        return all(k in self._table.data for k in keys)

    def delete_key(self, key):
        return self._table.delete(key)

    def num_keys(self):
        return len(self._table.data)


class PrefixStore(Store):
    """Every key of `store` under ``prefix/``: one store serves several process groups."""

    def __init__(self, prefix, store):
        super().__init__(store.timeout)
        self.prefix = prefix
        self.underlying_store = store

    def _key(self, key):
        return f"{self.prefix}/{key}"

    def set(self, key, value):
        self.underlying_store.set(self._key(key), value)

    def get(self, key):
        return self.underlying_store.get(self._key(key))

    def add(self, key, amount):
        return self.underlying_store.add(self._key(key), amount)

    def compare_set(self, key, expected_value, desired_value):
        return self.underlying_store.compare_set(self._key(key), expected_value, desired_value)

    def wait(self, keys, timeout=None):
        self.underlying_store.wait([self._key(k) for k in keys], timeout)

    def check(self, keys):
        return self.underlying_store.check([self._key(k) for k in keys])

    def delete_key(self, key):
        return self.underlying_store.delete_key(self._key(key))

    def num_keys(self):
        return self.underlying_store.num_keys()

    @property
    def timeout(self):
        return self.underlying_store.timeout

    def set_timeout(self, timeout):
        self.underlying_store.set_timeout(timeout)


class FileStore(Store):
    """A store in a file that processes on one machine (or a shared file system) open by name: an
    append-only log of records, each write under an exclusive lock; readers replay it."""

    _SET, _ADD, _DELETE = 0, 1, 2

    def __init__(self, file_name, world_size=-1, timeout=_DEFAULT_TIMEOUT):
        super().__init__(timeout)
        self.path = file_name
        self.world_size = world_size
        self._lock = threading.Lock()
        open(self.path, "ab").close()

    def _append(self, kind, key, value=b""):
        encoded = key.encode()
        record = struct.pack("<BII", kind, len(encoded), len(value)) + encoded + value
        with self._lock, open(self.path, "ab") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                f.write(record)
                f.flush()
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def _replay(self):
        with self._lock, open(self.path, "rb") as f:
            fcntl.flock(f, fcntl.LOCK_SH)
            try:
                blob = f.read()
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)
        data, offset = {}, 0
        while offset + 9 <= len(blob):
            kind, key_length, value_length = struct.unpack_from("<BII", blob, offset)
            offset += 9
            if offset + key_length + value_length > len(blob):
                break  # a record being written
            key = blob[offset:offset + key_length].decode()
            value = blob[offset + key_length:offset + key_length + value_length]
            offset += key_length + value_length
            if kind == self._SET:
                data[key] = value
            elif kind == self._ADD:
                data[key] = str(int(data.get(key, b"0")) + int(value)).encode()
            else:
                data.pop(key, None)
        return data

    def set(self, key, value):
        self._append(self._SET, key, _bytes(value))

    def get(self, key):
        self.wait([key])
        return self._replay()[key]

    def add(self, key, amount):
        # The increment is a record of its own, so concurrent adds from several processes all count.
        self._append(self._ADD, key, str(int(amount)).encode())
        data = self._replay()
        return int(data[key])

    def compare_set(self, key, expected_value, desired_value):
        expected, desired = _bytes(expected_value), _bytes(desired_value)
        with open(self.path + ".lock", "ab") as guard:
            fcntl.flock(guard, fcntl.LOCK_EX)
            current = self._replay().get(key)
            if (current is None and expected == b"") or current == expected:
                self._append(self._SET, key, desired)
                return desired
            return expected if current is None else current

    def wait(self, keys, timeout=None):
        seconds = self._timeout if timeout is None else _seconds(timeout)
        deadline = time.monotonic() + seconds
        delay = 0.001
        while not self.check(keys):
            if seconds > 0 and time.monotonic() > deadline:
                raise self._timeout_error(keys, seconds)
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    def check(self, keys):
        data = self._replay()
        return all(k in data for k in keys)

    def delete_key(self, key):
        present = key in self._replay()
        self._append(self._DELETE, key)
        return present

    def num_keys(self):
        return len(self._replay())


# ---- TCPStore ------------------------------------------------------------------------------------
# A request is one opcode byte and fields; a field is a u32 length and its bytes, an integer is an i64.
_SET, _GET, _ADD, _CHECK, _WAIT, _COMPARE_SET, _DELETE, _NUM_KEYS = range(8)
_OK, _TIMED_OUT = 0, 1


def _recv_exactly(sock, n):
    chunks, left = [], n
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise ConnectionError("TCPStore: the connection was closed")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _field(data):
    return struct.pack("<I", len(data)) + data


def _read_field(sock, limit=1 << 30):
    (length,) = struct.unpack("<I", _recv_exactly(sock, 4))
    if length > limit:
        raise ConnectionError(f"TCPStore: a field of {length} bytes is larger than allowed")
    return _recv_exactly(sock, length)


def _read_int(sock):
    return struct.unpack("<q", _recv_exactly(sock, 8))[0]


def _read_keys(sock):
    count = _read_int(sock)
    if not 0 <= count <= 1 << 20:
        raise ConnectionError(f"TCPStore: a request names {count} keys")
    return [_read_field(sock).decode() for _ in range(count)]


def _serve(table, sock):
    """Answers one client's requests until it disconnects (or sends what no client of ours sends)."""
    try:
        while True:
            try:
                op = _recv_exactly(sock, 1)[0]
            except ConnectionError:
                return
            if op == _SET:
                key = _read_field(sock).decode()
                table.set(key, _read_field(sock))
                sock.sendall(b"\x00")
            elif op == _GET:
                key, millis = _read_field(sock).decode(), _read_int(sock)
                if table.wait([key], millis / 1000):
                    sock.sendall(bytes([_OK]) + _field(table.data[key]))
                else:
                    sock.sendall(bytes([_TIMED_OUT]))
            elif op == _ADD:
                key, delta = _read_field(sock).decode(), _read_int(sock)
                sock.sendall(struct.pack("<q", table.add(key, delta)))
            elif op == _CHECK:
                keys = _read_keys(sock)
                sock.sendall(bytes([all(k in table.data for k in keys)]))
            elif op == _WAIT:
                keys, millis = _read_keys(sock), _read_int(sock)
                sock.sendall(bytes([_OK if table.wait(keys, millis / 1000) else _TIMED_OUT]))
            elif op == _COMPARE_SET:
                key = _read_field(sock).decode()
                expected, desired = _read_field(sock), _read_field(sock)
                sock.sendall(_field(table.compare_set(key, expected, desired)))
            elif op == _DELETE:
                sock.sendall(bytes([table.delete(_read_field(sock).decode())]))
            elif op == _NUM_KEYS:
                sock.sendall(struct.pack("<q", len(table.data)))
            else:
                return
    except (ConnectionError, OSError, UnicodeDecodeError, struct.error):
        return
    finally:
        sock.close()


class _Server:
    """The master's listening socket: a thread accepts clients and gives each a thread of its own.
    close() never waits (it may run while the interpreter exits, when no other thread runs)."""

    def __init__(self, host, port):
        self.table = _Table()
        self.sock = socket.create_server((host, port))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self._stopped = threading.Event()
        threading.Thread(target=self._accept, name="ember-tcpstore", daemon=True).start()

    def _accept(self):
        while not self._stopped.is_set():
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            conn.settimeout(None)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=_serve, args=(self.table, conn), daemon=True).start()

    def close(self):
        self._stopped.set()
        self.sock.close()


class TCPStore(Store):
    """A store served over TCP by the process created with ``is_master=True`` (rank 0, in a thread of
    its own) at host_name:port; every process, the master included, is a client. port=0 on the master
    picks a free port (``store.port`` tells which)."""

    def __init__(self, host_name, port, world_size=None, is_master=False, timeout=_DEFAULT_TIMEOUT,
                 wait_for_workers=True, multi_tenant=False, master_listen_fd=None, use_libuv=None):
        super().__init__(timeout)
        self.host = host_name
        self.world_size = world_size
        self._server = None
        if is_master:
            self._server = _Server("" if host_name in ("", "0.0.0.0") else host_name, port)
            port = self._server.port
        self.port = port
        self._lock = threading.Lock()
        self._sock = self._connect()
        if world_size is not None and wait_for_workers:
            self.add("_ember_tcpstore_clients", 1)
            if is_master:
                self._wait_for_clients(world_size)

    def _connect(self):
        deadline = time.monotonic() + self._timeout
        delay = 0.01
        while True:
            try:
                sock = socket.create_connection((self.host, self.port), timeout=max(self._timeout, 1))
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                sock.settimeout(None)
                return sock
            except OSError as error:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"TCPStore: could not connect to {self.host}:{self.port} within "
                                       f"{self._timeout:g} s: {error}") from error
                time.sleep(delay)
                delay = min(delay * 2, 0.5)

    def _wait_for_clients(self, world_size):
        deadline = time.monotonic() + self._timeout
        while int(self.get("_ember_tcpstore_clients")) < world_size:
            if time.monotonic() > deadline:
                raise RuntimeError(f"TCPStore: timed out after {self._timeout:g} s waiting for {world_size} "
                                   f"clients to join")
            time.sleep(0.01)

    def _request(self, payload, read):
        with self._lock:
            self._sock.sendall(payload)
            return read(self._sock)

    def set(self, key, value):
        self._request(bytes([_SET]) + _field(key.encode()) + _field(_bytes(value)), lambda s: _recv_exactly(s, 1))

    def get(self, key):
        millis = int(self._timeout * 1000)

        def read(s):
            status = _recv_exactly(s, 1)[0]
            return _read_field(s) if status == _OK else None

        value = self._request(bytes([_GET]) + _field(key.encode()) + struct.pack("<q", millis), read)
        if value is None:
            raise self._timeout_error([key], self._timeout)
        return value

    def add(self, key, amount):
        return self._request(bytes([_ADD]) + _field(key.encode()) + struct.pack("<q", int(amount)), _read_int)

    def compare_set(self, key, expected_value, desired_value):
        payload = (bytes([_COMPARE_SET]) + _field(key.encode()) + _field(_bytes(expected_value))
                   + _field(_bytes(desired_value)))
        return self._request(payload, _read_field)

    def _keys(self, keys):
        return struct.pack("<q", len(keys)) + b"".join(_field(k.encode()) for k in keys)

    def wait(self, keys, timeout=None):
        seconds = self._timeout if timeout is None else _seconds(timeout)
        payload = bytes([_WAIT]) + self._keys(list(keys)) + struct.pack("<q", int(seconds * 1000))
        if self._request(payload, lambda s: _recv_exactly(s, 1)[0]) != _OK:
            raise self._timeout_error(keys, seconds)

    def check(self, keys):
        return bool(self._request(bytes([_CHECK]) + self._keys(list(keys)), lambda s: _recv_exactly(s, 1)[0]))

    def delete_key(self, key):
        return bool(self._request(bytes([_DELETE]) + _field(key.encode()), lambda s: _recv_exactly(s, 1)[0]))

    def num_keys(self):
        return self._request(bytes([_NUM_KEYS]), _read_int)

    def close(self):
        try:
            self._sock.close()
        finally:
            if self._server is not None:
                self._server.close()
                self._server = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
