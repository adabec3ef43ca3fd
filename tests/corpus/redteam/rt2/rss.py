"""python rss.py CMD...: run CMD, report the peak RSS of each process of its tree (not the sandboxed workers' cgroup)."""
import subprocess
import sys
import time
import psutil
p = subprocess.Popen(sys.argv[1:])
root = psutil.Process(p.pid)
peak = {}
while p.poll() is None:
    try:
        procs = [root] + root.children(recursive=True)
    except psutil.Error:
        procs = []
    for q in procs:
        try:
            rss = q.memory_info().rss
            key = (q.pid, q.uids().real, " ".join(q.cmdline()[:4])[:60])
            peak[key] = max(peak.get(key, 0), rss)
        except psutil.Error:
            pass
    time.sleep(0.1)
for (pid, uid, cmd), rss in sorted(peak.items(), key=lambda kv: -kv[1])[:6]:
    print(f"peak {rss / 2**30:6.2f} GiB pid={pid} uid={uid} {cmd}", file=sys.stderr)
sys.exit(p.returncode)
