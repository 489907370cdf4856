import { useRef, type KeyboardEvent, type ReactNode } from 'react';

export interface TabItem {
  id: string;
  label: string;
}

interface TabsProps {
  tabs: TabItem[];
  selected: string;
  onSelect: (id: string) => void;
  label: string;
  /** Prefix of the ids of the panels (`${idPrefix}-${tab.id}-panel`). */
  idPrefix: string;
}

/** WAI-ARIA tabs: arrow keys move between tabs, the panel is named by its tab. */
export function Tabs({ tabs, selected, onSelect, label, idPrefix }: TabsProps) {
  const refs = useRef<Array<HTMLButtonElement | null>>([]);
  const onKeyDown = (event: KeyboardEvent, index: number) => {
    const delta = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (event.key === 'Home' || event.key === 'End' || delta !== 0) {
      event.preventDefault();
      const next = event.key === 'Home' ? 0 : event.key === 'End' ? tabs.length - 1 : (index + delta + tabs.length) % tabs.length;
      onSelect(tabs[next].id);
      refs.current[next]?.focus();
    }
  };
  return (
    <div className="tabs" role="tablist" aria-label={label}>
      {tabs.map((tab, index) => (
        <button
          key={tab.id}
          ref={(element) => {
            refs.current[index] = element;
          }}
          type="button"
          role="tab"
          id={`${idPrefix}-${tab.id}-tab`}
          aria-selected={tab.id === selected}
          aria-controls={`${idPrefix}-${tab.id}-panel`}
          tabIndex={tab.id === selected ? 0 : -1}
          className="tab"
          onClick={() => onSelect(tab.id)}
          onKeyDown={(event) => onKeyDown(event, index)}
        >
          {tab.label}
        </button>
      ))}
    </div>
  );
}

export function TabPanel({ idPrefix, id, children }: { idPrefix: string; id: string; children: ReactNode }) {
  return (
    <div role="tabpanel" id={`${idPrefix}-${id}-panel`} aria-labelledby={`${idPrefix}-${id}-tab`} className="tab-panel">
      {children}
    </div>
  );
}
