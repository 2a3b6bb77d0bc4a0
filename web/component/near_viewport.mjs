// The elements load their module and model once they first come near the
// viewport (200px ahead), so a page of many figures loads only what it shows.

/**
 * Calls onNear() once, when `element` first comes within 200px of the
 * viewport (at once where there is no IntersectionObserver). Returns the
 * observer, to disconnect when the element leaves the page, or null.
 */
export function watchNearViewport(element, onNear) {
  if (typeof IntersectionObserver !== 'function') {
    onNear();
    return null;
  }
  const observer = new IntersectionObserver(
    (entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      observer.disconnect();
      onNear();
    },
    { rootMargin: '200px' },
  );
  observer.observe(element);
  return observer;
}
