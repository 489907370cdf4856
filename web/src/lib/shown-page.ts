import { useRef } from 'react';

/**
 * The page offset of the rows on screen. While a list query shows the previous answer as a
 * placeholder (`placeholderData`), the address already names the next page; the pager must keep
 * describing the rows shown ("1–50 of 120") until that page's rows arrive.
 */
export function useShownOffset(offset: number, placeholder: boolean): number {
  const shown = useRef(offset);
  if (!placeholder) shown.current = offset;
  return shown.current;
}
