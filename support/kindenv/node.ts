/**
 * kindEnv's node, as kind's node container holds one: containerd with runc,
 * the CNI bridge, kubelet and kube-proxy, all inside the run's own network
 * namespace (so kube-proxy's rules, the pod bridge and the node's ports never
 * touch the host's or another run's). Pods get addresses from the run's pod
 * range, routed from the host through the namespace's veth pair, so the API
 * server reaches them directly by IP.
 *
 * The processes enter only the network namespace (nsenter --net), not a mount
 * namespace of their own: the kubelet's volume mounts must be visible to
 * containerd when it starts a container.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import type { NetworkNamespace } from './netns.ts';
import { GiveUp, startProcess, waitFor, type ManagedProcess } from './processes.ts';
import { tool } from './tools.ts';

const run = promisify(execFile);

export interface NodeOptions {
  dir: string;
  netns: NetworkNamespace;
  kubeConfig: KubeConfig;
  /** Kubeconfig whose server address is reachable from inside the namespace. */
  kubeconfigFromNode: string;
  /** The sandbox image, already in buildah's store. */
  pauseImage: string;
  /** Seconds between the kubelet's pod syncs (how soon a changed Secret reaches a volume). */
  syncFrequencySeconds?: number;
  log: (line: string) => void;
}

export interface KindNode {
  readonly name: string;
  readonly processes: ManagedProcess[];
  /** Copies an image from buildah's store into the node's containerd. */
  loadImage(image: string): Promise<void>;
  /** The logs of the containers of a namespace's pods, or of one pod (the kubelet writes them under its pod logs directory). */
  containerLogs(namespace: string, pod?: string): string;
  stop(): Promise<void>;
}

export async function startNode(options: NodeOptions): Promise<KindNode> {
  const { dir, netns, log } = options;
  const name = `kindenv-${process.pid}`;
  const processes: ManagedProcess[] = [];
  const cgroupRoot = `/shaper-kindenv-${process.pid}`;
  const paths = {
    containerdSocket: path.join(dir, 'containerd', 'containerd.sock'),
    cniConf: path.join(dir, 'cni', 'net.d'),
    podLogs: path.join(dir, 'pod-logs'),
    kubelet: path.join(dir, 'kubelet'),
  };
  for (const folder of [paths.cniConf, paths.podLogs, paths.kubelet]) mkdirSync(folder, { recursive: true });
  const inNode = (command: string, args: string[]) => ({ command: 'nsenter', args: [`--net=/run/netns/${netns.name}`, '--', command, ...args] });
  const stop = async () => {
    const [containerd, ...rest] = processes;
    for (const process of rest.reverse()) await process.stop('SIGTERM', 15_000);
    // Whatever the kubelet did not stop: the containers (in the run's cgroups), then their shims, then containerd.
    killCgroupProcesses(cgroupRoot);
    await run('pkill', ['-KILL', '-f', `containerd-shim-runc-v2 .*-address ${paths.containerdSocket}`]).catch(() => undefined);
    await containerd?.stop('SIGTERM', 15_000);
    await removePodNetworks(netns.podCidr);
    removeCgroups(cgroupRoot);
  };
  try {
    await run('ip', ['netns', 'exec', netns.name, 'sysctl', '-q', '-w', 'net.ipv4.ip_forward=1']);
    createCgroups(cgroupRoot);
    writeFileSync(path.join(paths.cniConf, '10-kindenv.conflist'), JSON.stringify(cniConfig(name, netns.podCidr, path.join(dir, 'cni', 'ipam')), null, 2));
    const containerdConfig = path.join(dir, 'containerd', 'config.toml');
    mkdirSync(path.dirname(containerdConfig), { recursive: true });
    writeFileSync(containerdConfig, containerdToml(dir, paths.containerdSocket, paths.cniConf, options.pauseImage));

    log(`starting containerd in network namespace ${netns.name}`);
    const containerd = inNode('containerd', ['--config', containerdConfig]);
    const containerdProcess = startProcess('containerd', containerd.command, containerd.args, path.join(dir, 'containerd.log'));
    processes.push(containerdProcess);
    await waitFor(
      'containerd to listen',
      () => {
        if (containerdProcess.child.exitCode !== null) throw new GiveUp(`containerd exited (is it installed? bash scripts/install-node-images.sh):\n${containerdProcess.tail()}`);
        return existsSync(paths.containerdSocket) ? true : undefined;
      },
      30_000,
      100,
    );
    const node: KindNode = {
      name,
      processes,
      async loadImage(image) {
        const archive = path.join(dir, 'image.tar');
        await run('buildah', ['push', '--quiet', image, `docker-archive:${archive}:${image}`], { maxBuffer: 16 * 1024 * 1024 });
        await run('ctr', ['--address', paths.containerdSocket, '--namespace', 'k8s.io', 'images', 'import', archive]);
        await run('rm', ['-f', archive]);
      },
      containerLogs(namespace, pod) {
        const folders = readdirSync(paths.podLogs).filter((entry) => entry.startsWith(pod ? `${namespace}_${pod}_` : `${namespace}_`));
        return folders
          .flatMap((folder) =>
            readdirSync(path.join(paths.podLogs, folder)).flatMap((container) =>
              readdirSync(path.join(paths.podLogs, folder, container))
                .sort()
                .map((file) => readFileSync(path.join(paths.podLogs, folder, container, file), 'utf8')),
            ),
          )
          .join('');
      },
      stop,
    };
    log(`loading ${options.pauseImage} into the node`);
    await node.loadImage(options.pauseImage);

    const kubeletConfig = path.join(paths.kubelet, 'config.yaml');
    writeFileSync(kubeletConfig, stringify(kubeletConfiguration(paths, cgroupRoot, options.syncFrequencySeconds ?? 10)));
    log(`starting kubelet (node ${name}, pods in ${netns.podCidr})`);
    const kubelet = inNode(tool('kubelet'), [
      `--config=${kubeletConfig}`,
      `--kubeconfig=${options.kubeconfigFromNode}`,
      `--root-dir=${paths.kubelet}`,
      `--hostname-override=${name}`,
      `--node-ip=${netns.podAddress}`,
      '--v=1',
    ]);
    const kubeletProcess = startProcess('kubelet', kubelet.command, kubelet.args, path.join(dir, 'kubelet.log'));
    processes.push(kubeletProcess);

    const proxyConfig = path.join(dir, 'kube-proxy.yaml');
    writeFileSync(proxyConfig, stringify(kubeProxyConfiguration(options.kubeconfigFromNode, netns.podCidr)));
    log('starting kube-proxy (iptables, inside the namespace)');
    const proxy = inNode(tool('kube-proxy'), [`--config=${proxyConfig}`, `--hostname-override=${name}`, '--v=1']);
    processes.push(startProcess('kube-proxy', proxy.command, proxy.args, path.join(dir, 'kube-proxy.log')));

    const core = options.kubeConfig.makeApiClient(CoreV1Api);
    await waitFor(
      `node ${name} to become Ready`,
      async () => {
        if (kubeletProcess.child.exitCode !== null) throw new GiveUp(`kubelet exited:\n${kubeletProcess.tail(40)}`);
        const found = await core.readNode({ name });
        return found.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' ? true : undefined;
      },
      120_000,
      500,
    );
    log(`node ${name} is Ready`);
    return node;
  } catch (error) {
    await stop();
    throw error;
  }
}

function cniConfig(name: string, podCidr: string, ipamDir: string) {
  return {
    cniVersion: '1.0.0',
    name,
    plugins: [
      {
        type: 'bridge',
        bridge: `kb${process.pid}`.slice(0, 15),
        isGateway: true,
        ipMasq: false,
        hairpinMode: true,
        ipam: { type: 'host-local', ranges: [[{ subnet: podCidr }]], routes: [{ dst: '0.0.0.0/0' }], dataDir: ipamDir },
      },
      { type: 'portmap', capabilities: { portMappings: true } },
    ],
  };
}

function containerdToml(dir: string, socket: string, cniConf: string, pauseImage: string): string {
  const at = (name: string) => JSON.stringify(path.join(dir, 'containerd', name));
  return `version = 2
root = ${at('root')}
state = ${at('state')}
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.devmapper"]

[grpc]
  address = ${JSON.stringify(socket)}

[ttrpc]
  address = ${JSON.stringify(`${socket}.ttrpc`)}

[plugins."io.containerd.internal.v1.opt"]
  path = ${at('opt')}

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = ${JSON.stringify(pauseImage)}
  enable_selinux = false
  # This machine's root lacks CAP_SYS_RESOURCE, so no process may lower its
  # oom_score_adj below containerd's (the kubelet asks -998 for sandboxes).
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = ${JSON.stringify(cniConf)}
`;
}

function kubeletConfiguration(paths: { containerdSocket: string; podLogs: string }, cgroupRoot: string, syncFrequencySeconds: number) {
  return {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    // Kubernetes 1.35 refuses cgroup v1 unless told otherwise; this machine's hierarchy is v1 (hybrid).
    failCgroupV1: false,
    failSwapOn: false,
    cgroupDriver: 'cgroupfs',
    cgroupRoot,
    containerRuntimeEndpoint: `unix://${paths.containerdSocket}`,
    podLogsDir: paths.podLogs,
    authentication: { anonymous: { enabled: true }, webhook: { enabled: false } },
    authorization: { mode: 'AlwaysAllow' },
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    // A changed Secret reaches the pod's volume on the next sync.
    syncFrequency: `${syncFrequencySeconds}s`,
    // Images here cannot be pulled again: never collect them, never evict for a full disk.
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '1%', 'imagefs.available': '1%', 'nodefs.inodesFree': '1%' },
    serializeImagePulls: false,
    resolvConf: '/etc/resolv.conf',
    protectKernelDefaults: false,
    makeIPTablesUtilChains: false,
    localStorageCapacityIsolation: false,
  };
}

function kubeProxyConfiguration(kubeconfig: string, podCidr: string) {
  return {
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
    kind: 'KubeProxyConfiguration',
    mode: 'iptables',
    clientConnection: { kubeconfig },
    clusterCIDR: podCidr,
    // Leave the kernel's conntrack settings alone (they are not per-namespace).
    conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: '0s', tcpCloseWaitTimeout: '0s' },
    healthzBindAddress: '127.0.0.1:10256',
    metricsBindAddress: '127.0.0.1:10249',
  };
}

const CGROUP_CONTROLLERS = ['cpu', 'cpuacct', 'cpuset', 'memory', 'devices', 'freezer', 'blkio', 'pids', 'systemd'];

/** The kubelet's cgroup root, one per run so two runs' pods never share a hierarchy. */
function createCgroups(root: string): void {
  for (const controller of CGROUP_CONTROLLERS) {
    const dir = path.join('/sys/fs/cgroup', controller, root);
    if (!existsSync(path.dirname(dir))) continue;
    mkdirSync(dir, { recursive: true });
    if (controller === 'cpuset') {
      for (const file of ['cpuset.cpus', 'cpuset.mems']) writeFileSync(path.join(dir, file), readFileSync(path.join('/sys/fs/cgroup/cpuset', file)));
    }
  }
}

function killCgroupProcesses(root: string): void {
  const visit = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const pid of readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) visit(path.join(dir, entry.name));
  };
  visit(path.join('/sys/fs/cgroup/pids', root));
}

/** The pod network namespaces containerd made (`/run/netns/cni-…`) whose eth0 is in this run's pod range. */
async function removePodNetworks(podCidr: string): Promise<void> {
  const prefix = podCidr.split('.').slice(0, 3).join('.') + '.';
  const entries = existsSync('/run/netns') ? readdirSync('/run/netns').filter((name) => name.startsWith('cni-')) : [];
  for (const name of entries) {
    const { stdout } = await run('ip', ['-n', name, '-4', '-o', 'addr', 'show']).catch(() => ({ stdout: '' }));
    if (stdout.includes(` ${prefix}`)) await run('ip', ['netns', 'delete', name]).catch(() => undefined);
  }
}

function removeCgroups(root: string): void {
  const removeTree = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) removeTree(path.join(dir, entry.name));
    try {
      rmdirSync(dir);
    } catch {
      /* a process is still in it; the kernel frees it when it exits */
    }
  };
  for (const controller of CGROUP_CONTROLLERS) removeTree(path.join('/sys/fs/cgroup', controller, root));
}
