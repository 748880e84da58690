"""mps_run: torch.mps.compile_shader on a machine without an MPS device.

The Python side of mps-run (the skill's tools/bin/mps-run, issue #26).
mps-run starts the script through _main(), which puts compile_shader into
torch.mps when torch has no MPS device, then runs the script as __main__.
A script may also `import mps_run` and call mps_run.compile_shader itself
(under mps-run: the session's variables must be set).

inline_includes(source) gives the source with its checkout headers
inlined, for the real compile_shader on a Mac; under mps-run with an MPS
device, torch.mps.compile_shader does that itself.

compile_shader(source) returns a library with one attribute per kernel;
lib.KERNEL(*args, threads=None, group_size=None) binds the arguments in
order to the kernel's buffer slots, as PyTorch's compile_shader does:
  - a tensor (CPU here): its storage from its storage offset (the kernel
    sees the raw storage: strides are the kernel's business);
  - a Python float: a 32-bit float; an int or a bool: a 64-bit integer;
  - a list or tuple of floats / ints: an array of those.
threads: an int or 1-3 ints, the whole grid (dispatchThreads); default:
the numel of the first tensor argument.  group_size: the same length; default:
min(threads, 1024) for the first dimension, 1 for the others.
arg_casts (a cast name, or {index: name}; fp16 bf16 int32 int16 int8
uint8) casts scalar and list arguments as PyTorch's; error_buf_idx binds
the error buffer of c10/metal/error.h at that slot, and what a kernel
reports there is raised after the call (torch.AcceleratorError, else
RuntimeError), as the MPS stream raises it at its next synchronization.
The build and each call are done by the tool (mps-run --internal-build,
--internal-call), which prints the findings; the tensors the kernel may
write (device, not const) are copied back after the call.  Of such a
tensor that does not cover its storage from its offset (a strided or
sliced view) the call names the elements it covers (sizes and strides),
and unwritten-output counts those only.
"""
import os
import re
import struct
import subprocess
import sys

MAX_THREADS_PER_THREADGROUP = 1024

_state = {"libs": 0, "calls": 0}


def _env(name):
    v = os.environ.get(name)
    if v is None:
        raise RuntimeError("mps_run: %s is not set: run the script under mps-run" % name)
    return v


def _caller():
    """The script's frame that called into this module: (file, line)."""
    f = sys._getframe(1)
    here = os.path.abspath(__file__)
    while f is not None and os.path.abspath(f.f_code.co_filename) == here:
        f = f.f_back
    if f is None:
        return "<unknown>", 0
    return f.f_code.co_filename, f.f_lineno


def _origin(source, file):
    """Where the source's first line is in FILE: the line offset, or None."""
    try:
        with open(file, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError):
        return None
    i = text.find(source)
    if i < 0:
        return None
    return text.count("\n", 0, i)


def _metal_origin(source, script):
    """The .metal file in SCRIPT's folder holding SOURCE, and the line
    offset of SOURCE in it: (path, offset), or (None, None)."""
    folder = os.path.dirname(script)
    try:
        names = sorted(n for n in os.listdir(folder or ".") if n.endswith(".metal"))
    except OSError:
        return None, None
    for n in names:
        p = os.path.join(folder, n)
        try:
            if os.path.getsize(p) > (4 << 20):
                continue
        except OSError:
            continue
        off = _origin(source, p)
        if off is not None and source.strip():
            return p, off
    return None, None


class _Kernel:
    def __init__(self, lib, name, slots):
        self._lib = lib
        self._name = name
        self._slots = slots  # [(kind, name)]
        self.max_threads_per_threadgroup = MAX_THREADS_PER_THREADGROUP
        self.thread_execution_width = int(os.environ.get("MPS_RUN_SIMD", "32"))
        self.static_thread_group_memory_length = 0

    def __call__(self, *args, threads=None, group_size=None, arg_casts=None, error_buf_idx=None):
        import torch
        given = set(range(len(args)))
        if error_buf_idx is not None:
            error_buf_idx = int(error_buf_idx)
            given.add(error_buf_idx)
        if given != set(range(len(self._slots))):
            raise ValueError("mps_run: kernel '%s' has %d buffer arguments, %d given%s"
                             % (self._name, len(self._slots), len(args),
                                "" if error_buf_idx is None else " and the error buffer at %d" % error_buf_idx))
        casts = _Casts(arg_casts)
        file, line = _caller()
        if threads is None:
            first = next((a for a in args if isinstance(a, torch.Tensor)), None)
            if first is None:
                raise ValueError("mps_run: threads is required when no argument is a tensor")
            threads = first.numel()
        threads = list(threads) if isinstance(threads, (list, tuple)) else [threads]
        if not 1 <= len(threads) <= 3 or any(int(t) < 0 for t in threads):
            raise ValueError("mps_run: threads must be 1-3 non-negative numbers")
        if group_size is None:
            group_size = [min(max(int(threads[0]), 1), MAX_THREADS_PER_THREADGROUP)] + [1] * (len(threads) - 1)
        group_size = list(group_size) if isinstance(group_size, (list, tuple)) else [group_size]
        if len(group_size) != len(threads):
            raise ValueError("mps_run: group_size must have as many dimensions as threads")
        gs = 1
        for g in group_size:
            if int(g) <= 0:
                raise ValueError("mps_run: group_size must be positive")
            gs *= int(g)
        if gs > MAX_THREADS_PER_THREADGROUP:
            raise ValueError("mps_run: group_size %s is over %d threads"
                             % (group_size, MAX_THREADS_PER_THREADGROUP))
        _state["calls"] += 1
        d = os.path.join(self._lib._dir, "call%d" % _state["calls"])
        os.mkdir(d)
        out = []
        lines = ["kernel %s" % self._name,
                 "file %s" % self._lib._file,
                 "lineoff %d" % self._lib._lineoff,
                 "src %s" % os.path.join(self._lib._dir, "kernel.metal"),
                 "callsite %s:%d" % (file, line),
                 "findings %s" % os.path.join(d, "findings"),
                 "simd %s" % os.environ.get("MPS_RUN_SIMD", "32"),
                 "threads %s" % " ".join(str(int(t)) for t in threads + [1] * (3 - len(threads))),
                 "group %s" % " ".join(str(int(g)) for g in group_size + [1] * (3 - len(group_size)))]
        errpath = None
        if error_buf_idx is not None:
            # the stream's error buffer: c10::metal::ErrorMessages, zeroed
            errpath = os.path.join(d, "a%d" % error_buf_idx)
            with open(errpath, "wb") as fh:
                fh.write(bytes(_ERROR_BUFFER_BYTES))
            lines.append("arg %d %s" % (error_buf_idx, errpath))
        for i, (a, (kind, name)) in enumerate(zip(args, self._slots)):
            if i == error_buf_idx:
                continue
            p = os.path.join(d, "a%d" % i)
            if isinstance(a, torch.Tensor):
                if a.device.type != "cpu":
                    raise ValueError("mps_run: argument %d is on %s; mps-run runs CPU tensors" % (i, a.device))
                flat = _storage_view(a)
                data = flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b""
                if kind == "buf":
                    out.append((p, flat))
                    if not (a.is_contiguous() and a.numel() == flat.numel()):
                        # the elements the view covers: unwritten-output
                        # counts those only
                        lines.append("view %d %d %d %s" % (
                            i, a.element_size(), a.dim(),
                            " ".join(str(int(v)) for v in list(a.shape) + list(a.stride()))))
            elif isinstance(a, (bool, int, float)) or (
                    isinstance(a, (list, tuple)) and len(a) > 0 and isinstance(a[0], (int, float))):
                data = casts.pack(i, a)
            else:
                raise TypeError("mps_run: argument %d of type %s is not supported" % (i, type(a).__name__))
            with open(p, "wb") as fh:
                fh.write(data)
            lines.append("arg %d %s" % (i, p))
        callfile = os.path.join(d, "call.txt")
        with open(callfile, "w") as fh:
            fh.write("\n".join(lines) + "\n")
        sys.stdout.flush()
        sys.stderr.flush()
        r = subprocess.run([_env("MPS_RUN_TOOL"), "--internal-call", self._lib._dir, callfile])
        if r.returncode == 2:
            raise RuntimeError("mps_run: kernel '%s' could not be run (see above)" % self._name)
        if r.returncode == 0:
            for p, flat in out:
                with open(p, "rb") as fh:
                    data = fh.read()
                if data:
                    flat.view(torch.uint8).copy_(torch.frombuffer(bytearray(data), dtype=torch.uint8))
            if errpath is not None:
                self._raise_reported(errpath, torch)

    def _raise_reported(self, errpath, torch):
        """What the kernel reported through c10/metal/error.h, raised as
        MPSStream::checkLastError raises it: the first message, as
        c10::AcceleratorError (torch.AcceleratorError, a RuntimeError;
        RuntimeError where torch lacks it).  On the GPU it comes at the
        next synchronization; here at the call."""
        with open(errpath, "rb") as fh:
            data = fh.read()
        count = struct.unpack_from("<I", data, 0)[0] if len(data) >= 4 else 0
        if not count:
            return
        msg = data[4:4 + _ERROR_MESSAGE_BYTES]
        cstr = lambda b: b.split(b"\0", 1)[0].decode("utf-8", "replace")
        text = cstr(msg[256:506])
        line = struct.unpack_from("<I", msg, 508)[0]
        at = ("%s:%d" % (self._lib._file, line + self._lib._lineoff)
              if self._lib._lineoff or not self._lib._file.endswith(")") else
              "%s:%d" % (self._lib._file, line))
        sys.stderr.write("mps-run: %s: note: kernel '%s' reported %s through the error buffer: %s; "
                         "raised as the MPS stream raises it [error-buffer]\n"
                         % (at, self._name, "1 error" if count == 1 else "%d errors" % count, text))
        sys.stderr.flush()
        raise getattr(torch, "AcceleratorError", RuntimeError)(text)


# c10/metal/error.h: ErrorMessages is an unsigned count and 30 messages of
# file[128], func[128], message[250] and an unsigned line (512 bytes each)
_ERROR_MESSAGE_BYTES = 512
_ERROR_BUFFER_BYTES = 4 + 30 * _ERROR_MESSAGE_BYTES


class _Casts:
    """compile_shader's arg_casts (torch/csrc/mps/Module.cpp): None, a
    cast for every scalar and list argument ("fp16", "bf16", "int32",
    "int16", "int8", "uint8"), or a dict {argument index: cast}.  Without
    a cast a float is bound as float and an int or bool as int64; a list
    as an array of those (its first element decides)."""

    NAMES = ("fp16", "bf16", "int32", "int16", "int8", "uint8")

    def __init__(self, arg_casts):
        self.default, self.map = "", {}
        if arg_casts is None:
            pass
        elif isinstance(arg_casts, str):
            self.default = arg_casts
        elif isinstance(arg_casts, dict):
            self.map = {int(k): v for k, v in arg_casts.items()}
        else:
            raise RuntimeError("Unexpected caster arg type %s" % type(arg_casts).__name__)

    def pack(self, idx, value):
        import torch
        cast = self.map.get(idx, self.default)
        values = list(value) if isinstance(value, (list, tuple)) else [value]
        floating = isinstance(values[0], float)
        if not floating:
            values = [int(v) for v in values]
        if not cast:
            return struct.pack("<%d%s" % (len(values), "f" if floating else "q"), *values)
        if cast not in self.NAMES:
            raise RuntimeError("Unsupported cast instruction %s" % cast)
        t = torch.tensor(values, dtype=torch.float32 if floating else torch.int64)
        dt = {"fp16": torch.float16, "bf16": torch.bfloat16, "int32": torch.int32,
              "int16": torch.int16, "int8": torch.int8, "uint8": torch.uint8}[cast]
        t = t.to(dt)
        if dt == torch.bfloat16:
            t = t.view(torch.int16)
        return t.numpy().tobytes()


def _storage_view(t):
    """A 1-D tensor over T's storage from T's storage offset to its end."""
    import torch
    st = t.storage()
    n = st.size() - t.storage_offset()
    v = torch.empty(0, dtype=t.dtype)
    v.set_(st, t.storage_offset(), (max(n, 0),))
    return v


class _Library:
    def __init__(self, source):
        if not isinstance(source, str):
            raise TypeError("compile_shader: the source must be a str")
        session = _env("MPS_RUN_SESSION")
        _state["libs"] += 1
        self._dir = os.path.join(session, "lib%d" % _state["libs"])
        os.mkdir(self._dir)
        file, line = _caller()
        off = _origin(source, file)
        if off is None:
            # a source read from a .metal file beside the script: that
            # file's lines
            mfile, off = _metal_origin(source, file)
            if mfile is not None:
                file = mfile
        if off is None:
            self._file, self._lineoff = "%s:%d(compile_shader source)" % (file, line), 0
        else:
            self._file, self._lineoff = file, off
        with open(os.path.join(self._dir, "source.metal"), "w", encoding="utf-8") as fh:
            fh.write(source)
        with open(os.path.join(self._dir, "origin"), "w", encoding="utf-8") as fh:
            fh.write("%s\n%d\n" % (self._file, self._lineoff))
        sys.stdout.flush()
        sys.stderr.flush()
        r = subprocess.run([_env("MPS_RUN_TOOL"), "--internal-build", self._dir])
        if r.returncode != 0:
            raise RuntimeError("compile_shader: the source did not compile on the host (see above)")
        self._kernels = {}
        cur = None
        with open(os.path.join(self._dir, "kernels.txt")) as fh:
            for ln in fh:
                w = ln.split()
                if w and w[0] == "kernel":
                    cur = w[1]
                    self._kernels[cur] = []
                elif w and w[0] == "arg":
                    self._kernels[cur].append((w[2], w[3]))

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        k = self.__dict__.get("_kernels", {})
        if name not in k:
            raise AttributeError("no kernel '%s' in the library (mps-run runs plain kernel void "
                                 "functions; template kernels are not supported yet)" % name)
        return _Kernel(self, name, k[name])

    def __dir__(self):
        return sorted(self.__dict__.get("_kernels", {}))


def compile_shader(source):
    """torch.mps.compile_shader's stand-in (see the module's text)."""
    return _Library(source)


_CHECKOUT_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"](c10/|ATen/|aten/src/)', re.M)


def inline_includes(source, root=None):
    """SOURCE with its #include lines of a PyTorch checkout's headers
    (c10/metal/..., ATen/native/mps/kernels/...) replaced by the headers'
    text, each once: what the real torch.mps.compile_shader compiles (it
    has no include path).  The headers come from ROOT, else the checkout
    mps-run was given (--root) or runs in.  Done by `mps-run --inline -`
    (the tool beside this module: tools/bin/mps-run, or the one running
    the script); RuntimeError with its message when a header is missing."""
    tool = os.environ.get("MPS_RUN_TOOL") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), os.pardir, "bin", "mps-run")
    argv = [tool, "--inline"]
    root = root or os.environ.get("MPS_RUN_ROOT")
    if root:
        argv += ["--root", root]
    argv.append("-")
    r = subprocess.run(argv, input=source.encode("utf-8"), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.decode("utf-8", "replace").strip())
    return r.stdout.decode("utf-8")


def _install(torch):
    """Put compile_shader into torch.mps when torch has no MPS device."""
    import types
    try:
        has_mps = bool(torch.backends.mps.is_available())
    except AttributeError:
        has_mps = False
    if has_mps:
        # the real compile_shader, its source's checkout headers inlined
        real = torch.mps.compile_shader

        def compile_shader_inlined(source):
            if isinstance(source, str) and _CHECKOUT_INCLUDE.search(source):
                source = inline_includes(source)
            return real(source)
        torch.mps.compile_shader = compile_shader_inlined
        return False
    mps = getattr(torch, "mps", None)
    if mps is None:
        mps = types.ModuleType("torch.mps")
        sys.modules["torch.mps"] = mps
        torch.mps = mps
    mps.compile_shader = compile_shader
    return True


def _main(argv):
    import runpy
    try:
        import torch
    except ImportError:
        # mps-run tries its next python
        open(os.path.join(_env("MPS_RUN_SESSION"), "no-torch"), "w").close()
        sys.exit(2)
    _install(torch)
    script = argv[0]
    sys.argv = list(argv)
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    while "" in sys.path:
        sys.path.remove("")
    if not os.path.isfile(script):
        sys.stderr.write("mps-run: error: cannot open '%s'\n" % script)
        sys.exit(2)
    runpy.run_path(script, run_name="__main__")
