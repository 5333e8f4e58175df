import createNextIntlPlugin from "next-intl/plugin";

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Two instances sit behind nginx; neither should advertise itself or its framework.
  poweredByHeader: false,
  // ioredis, pg and the lock services' clients open sockets (etcd3's gRPC also reads its .proto
  // files at run time); keep them out of the server bundle and load them from node_modules. So are
  // the npm lock libraries the peer-… strategies run (lib/locks/strategies/peer-*.ts): each is
  // loaded as published, as the benchmark and the tests load it, on the app's ioredis and pg.
  serverExternalPackages: [
    "ioredis", "pg", "@prisma/adapter-pg", "etcd3", "node-zookeeper-client", "prom-client", "pino",
    "redlock", "redlock4", "@sesamecare-oss/redlock", "redis-semaphore", "redlock-universal", "advisory-lock",
  ],
};

// The language of each request (lib/i18n/request.ts): no locale in the URL, students type one address.
const withNextIntl = createNextIntlPlugin("./lib/i18n/request.ts");

export default withNextIntl(nextConfig);
