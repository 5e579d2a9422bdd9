// Commands of this topic are added here; commands/index.ts collects every exported defineCommand.
export {};
