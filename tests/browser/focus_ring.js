// The keyboard focus's ring, measured (tests/browser/test_accessibility.py): its width and
// the contrast of its colour against what is around the focused control (WCAG 2.4.11,
// 1.4.11: 3:1), with colours blended as the screen shows them.
() => {
  const parse = (c) => {
    const m = c.match(/[\d.]+/g).map(Number);
    return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1];
  };
  const over = (top, under) =>
    [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat([1]);
  const luminance = (c) => {
    const f = (v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const contrast = (a, b) => {
    const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  // The colour behind an element: its own background, else its ancestors', over the page.
  const behind = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const bg = parse(getComputedStyle(e).backgroundColor);
      if (bg[3] > 0) layers.push(bg);
      if (bg[3] === 1) break;
    }
    let colour = [255, 255, 255, 1];
    for (const e of [document.documentElement, document.body]) {
      const bg = parse(getComputedStyle(e).backgroundColor);
      if (bg[3] > 0) colour = over(bg, colour);
    }
    for (const layer of layers.reverse()) colour = over(layer, colour);
    return colour;
  };
  const el = document.activeElement;
  const style = getComputedStyle(el);
  const width = style.outlineStyle === "none" ? 0 : parseFloat(style.outlineWidth);
  const ring = width ? parse(style.outlineColor) : null;
  const around = behind(el.parentElement || el);
  return {
    what: el.outerHTML.slice(0, 80),
    width,
    ratio: ring ? contrast(over(ring, around), around) : 0,
  };
}
