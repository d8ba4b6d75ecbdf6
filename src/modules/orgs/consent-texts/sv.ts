/** The default consent disclosure in Swedish, one entry per paragraph (see ../consent-text.ts). */
export const sv: readonly string[] = [
  'Samtycke till elektroniska handlingar och underskrifter',
  'Avsändaren av det här dokumentet vill lämna det till dig och inhämta din underskrift elektroniskt. Läs följande innan du fortsätter.',
  'Papperskopia. Du har rätt att i stället få dokumentet på papper. Om du vill ha en papperskopia kontaktar du avsändaren via de kontaktuppgifter du redan har; avsändaren kan ta ut en skälig avgift om du har fått besked om det. När du har skrivit under får du det färdiga dokumentet via e-post och kan skriva ut det.',
  'Återkalla ditt samtycke. Du kan när som helst innan du skriver under återkalla ditt samtycke till att sköta detta elektroniskt genom att välja ”Jag godkänner inte” på den här sidan eller genom att meddela avsändaren. Om du återkallar samtycket avslutas den här elektroniska signeringsbegäran: dokumentet avböjs, och avsändaren måste i stället ge dig det på papper eller på annat sätt. Att återkalla samtycket påverkar inte rättsverkan av något som du tidigare har skrivit under elektroniskt.',
  'Omfattning. Ditt samtycke gäller det här dokumentet och de meddelanden om det som vi skickar till dig via e-post.',
  'Maskinvara och programvara. Du behöver en enhet med internetanslutning, en aktuell webbläsare (till exempel en ny version av Chrome, Edge, Firefox eller Safari) med JavaScript aktiverat, ett e-postkonto och möjlighet att visa och spara eller skriva ut PDF-filer.',
  'Uppdaterade kontaktuppgifter. Om din e-postadress eller andra kontaktuppgifter ändras ska du meddela avsändaren, så att avsändaren kan nå dig angående det här dokumentet.',
  'Genom att välja ”Jag godkänner” bekräftar du att du kan öppna och läsa den här informationen och dokument i PDF-format, och att du samtycker till att elektroniska handlingar och underskrifter används för det här dokumentet.',
];
