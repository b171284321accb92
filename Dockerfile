# One image for every Cowrie service; docker-compose.yml picks the command.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY . .
RUN npm install --no-audit --no-fund --include=dev && node scripts/prisma-generate.mjs
EXPOSE 3000
CMD ["node", "--import", "tsx", "services/gateway/src/main.ts"]
