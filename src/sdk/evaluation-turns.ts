/**
 * One flag evaluation per turn of the event loop. An evaluation (and the answer rendered right
 * after it) is synchronous work that grows with the project's flags; when many requests have
 * their context loaded at once, running them back to back would keep everything else waiting,
 * `/_health` included, for all of them. Taking turns lets the event loop read sockets between two
 * evaluations, so another request waits for at most one evaluation, whatever the load.
 */
const waiting: Array<() => void> = [];
let head = 0;
let scheduled = false;

function runNext(): void {
  const resolve = waiting[head];
  waiting[head] = () => undefined;
  head += 1;
  if (head === waiting.length) {
    waiting.length = 0;
    head = 0;
  }
  // The evaluation runs in the microtasks right after this callback; the next one in a later turn.
  resolve();
  if (waiting.length > head) setImmediate(runNext);
  else scheduled = false;
}

/** Resolves when this caller may run its evaluation: in arrival order, one per event-loop turn. */
export function evaluationTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!scheduled) {
      scheduled = true;
      setImmediate(runNext);
    }
  });
}
