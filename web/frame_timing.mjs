// Keystroke to redraw, measured the way a learner sees it: from the input
// event's own time stamp (when the browser received the key, so waiting in
// the event queue counts) to the end of the frame that paints a matrix
// computed from that keystroke's text, or from newer text that superseded
// it. The end is taken in a task queued from that frame's
// requestAnimationFrame callback, so the frame's style, layout, paint and
// commit are inside the measure. One measure per keystroke:
//   performance.getEntriesByName('minimind:keystroke-to-redraw')
// and, ending at that frame's requestAnimationFrame callback instead (the
// frame starts, its paint is still to come):
//   performance.getEntriesByName('minimind:keystroke-to-frame')

const KEYSTROKE_TO_REDRAW = 'minimind:keystroke-to-redraw';
const KEYSTROKE_TO_FRAME = 'minimind:keystroke-to-frame';

/** Calls `callback(frameStart)` once the next frame has been painted. */
function afterNextPaint(callback) {
  requestAnimationFrame(() => {
    const frameStart = performance.now();
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      callback(frameStart);
    };
    channel.port2.postMessage(null);
  });
}

export class RedrawTimer {
  #pending = []; // time stamps of keystrokes whose text is not on screen yet

  /** An input event that changes what the matrix should show. */
  keystroke(event) {
    this.#pending.push(event.timeStamp);
  }

  /**
   * What a request sent at `sentAt` computed is now drawn (or the page shows
   * that there is nothing to compute): every keystroke up to then is on
   * screen with the next frame.
   */
  drawn(sentAt) {
    const done = this.#pending.filter((time) => time <= sentAt);
    if (done.length === 0) return;
    this.#pending = this.#pending.filter((time) => time > sentAt);
    afterNextPaint((frameStart) => {
      const end = performance.now();
      for (const start of done) {
        performance.measure(KEYSTROKE_TO_FRAME, { start, end: frameStart });
        performance.measure(KEYSTROKE_TO_REDRAW, { start, end });
      }
    });
  }
}
