/** @type {import('next').NextConfig} */
const nextConfig = {
  // Two instances sit behind nginx; neither should advertise itself or its framework.
  poweredByHeader: false,
  // ioredis and pg open sockets; keep them out of the server bundle and load them from node_modules.
  serverExternalPackages: ["ioredis", "pg", "@prisma/adapter-pg"],
};

module.exports = nextConfig;
