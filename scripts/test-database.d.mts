export declare const DEFAULT_TEST_DATABASE_URL: string;
export declare function ensureTestDatabase(url: string): Promise<string | undefined>;
