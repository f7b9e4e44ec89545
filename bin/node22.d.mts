/** Types of bin/node22.mjs (plain JavaScript, so it loads on any Node). */
export declare const NODE_MAJOR: number;
export declare function nodeMajor(): number;
export declare function pmailCommand(args: string[], script: string, cwd: string): string;
