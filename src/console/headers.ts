/** Hashed asset names change with their content: cached for a year, never revalidated. */
export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';
/** index.html and unhashed files: always revalidated (ETag), so a new build is seen at once. */
export const REVALIDATE_CACHE = 'no-cache';
