#!/bin/sh
# A slow log device for scenarios/zookeeper-slowdisk.yaml, on a machine with
# no device-mapper (dm-delay) and no nbd: an ext4 file system (with its
# journal) on a loop device backed by a file, and a control group whose
# writes to that device the block layer throttles to IOPS a second. A
# process in the group waits for its fsync as it would for a slow disk; the
# rest of the machine writes to it at full speed.
#
#   slowdisk.sh up DIR IOPS    DIR/slowdisk.img (256 MiB), on a loop device,
#                              mounted on DIR/mnt; the group made
#   slowdisk.sh join DIR PID   PID (and the children it starts) into the group
#   slowdisk.sh down DIR       unmounted, detached, the group removed; what is
#                              not there is skipped
#
# The group is cgroup v1's blkio (blkio.throttle.write_iops_device) where it
# is mounted, else cgroup v2's io controller (io.max wiops). Needs root.
set -eu

cmd=$1
dir=$2
group=wperf-slowdisk-$(printf '%s' "$dir" | cksum | cut -d' ' -f1)
if [ -d /sys/fs/cgroup/blkio ]; then
	cg=/sys/fs/cgroup/blkio/$group
else
	cg=/sys/fs/cgroup/$group
fi

case $cmd in
up)
	iops=$3
	mkdir -p "$dir/mnt"
	truncate -s 256M "$dir/slowdisk.img"
	dev=$(losetup --find --show "$dir/slowdisk.img")
	mkfs.ext4 -q -F "$dev"
	mount "$dev" "$dir/mnt"
	majmin=$(cat "/sys/block/${dev#/dev/}/dev")
	mkdir -p "$cg"
	if [ -d /sys/fs/cgroup/blkio ]; then
		echo "$majmin $iops" > "$cg/blkio.throttle.write_iops_device"
	else
		grep -qw io /sys/fs/cgroup/cgroup.subtree_control ||
			echo +io > /sys/fs/cgroup/cgroup.subtree_control
		echo "$majmin wiops=$iops" > "$cg/io.max"
	fi
	echo "slowdisk: $dev ($majmin) on $dir/mnt, writes of $cg at $iops a second"
	;;
join)
	echo "$3" > "$cg/cgroup.procs"
	;;
down)
	if mountpoint -q "$dir/mnt"; then
		dev=$(findmnt -n -o SOURCE "$dir/mnt")
		umount "$dir/mnt"
		losetup -d "$dev"
	fi
	rm -f "$dir/slowdisk.img"
	[ ! -d "$cg" ] || rmdir "$cg"
	;;
*)
	echo "usage: slowdisk.sh up DIR IOPS | join DIR PID | down DIR" >&2
	exit 2
	;;
esac
