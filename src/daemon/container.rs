//! Are we inside a container? Then the mother runs on the host, reachable as
//! `host.docker.internal`.

use std::path::Path;

/// Inside a container when `/.dockerenv` exists, or PID 1's cgroup names a container
/// runtime (`docker`, `containerd`, `kubepods`, `libpod`). Pure: the caller reads the files.
pub fn detect(dockerenv_exists: bool, pid1_cgroup: &str) -> bool {
    dockerenv_exists
        || pid1_cgroup.lines().any(|line| {
            let path = line.rsplit(':').next().unwrap_or("");
            ["docker", "containerd", "kubepods", "libpod"].iter().any(|runtime| path.contains(runtime))
        })
}

/// [`detect`] on this machine's `/.dockerenv` and `/proc/1/cgroup`.
pub fn in_container() -> bool {
    let cgroup = std::fs::read_to_string("/proc/1/cgroup").unwrap_or_default();
    detect(Path::new("/.dockerenv").exists(), &cgroup)
}

#[cfg(test)]
mod tests {
    use super::detect;

    #[test]
    fn container_detection_on_fixture_files() {
        // A host (cgroup v1 and v2).
        let host_v1 = "12:pids:/init.scope\n11:memory:/init.scope\n1:name=systemd:/init.scope\n";
        let host_v2 = "0::/init.scope\n";
        assert!(!detect(false, host_v1));
        assert!(!detect(false, host_v2));
        assert!(!detect(false, ""));
        // Docker with cgroup v1, containerd, Kubernetes, Podman.
        let docker = "12:pids:/docker/3f1c2a9e8b7d\n1:name=systemd:/docker/3f1c2a9e8b7d\n";
        assert!(detect(false, docker));
        assert!(detect(false, "0::/system.slice/containerd.service/kubepods-besteffort.slice\n"));
        assert!(detect(false, "0::/kubepods/besteffort/pod1234/abcd\n"));
        assert!(detect(false, "0::/machine.slice/libpod-7a8b.scope\n"));
        // cgroup v2 inside Docker shows "0::/": `/.dockerenv` tells.
        assert!(detect(true, "0::/\n"));
        // A host path that merely contains the word elsewhere does not count.
        assert!(!detect(false, "0::/user.slice/user-1000.slice/session-2.scope\n"));
    }
}
