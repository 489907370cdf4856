/** Entries per page of an item's history (a flag's, a survey's, a definition's). */
export const HISTORY_PAGE_SIZE = 20;
