/** The default consent disclosure in Danish, one entry per paragraph (see ../consent-text.ts). */
export const da: readonly string[] = [
  'Samtykke til brug af elektroniske dokumenter og signaturer',
  'Afsenderen af dette dokument ønsker at give dig det og indhente din underskrift elektronisk. Læs venligst følgende, før du fortsætter.',
  'Papirkopi. Du har ret til i stedet at modtage dokumentet på papir. Hvis du ønsker en papirkopi, skal du kontakte afsenderen via de kontaktoplysninger, du allerede har; afsenderen kan opkræve et rimeligt gebyr, hvis du har fået besked om det. Når du har underskrevet, modtager du det færdige dokument på e-mail og kan udskrive det.',
  'Tilbagekaldelse af dit samtykke. Du kan til enhver tid, før du underskriver, tilbagekalde dit samtykke til at gennemføre dette elektronisk ved at vælge »Jeg accepterer ikke« på denne side eller ved at give afsenderen besked. Når du tilbagekalder dit samtykke, afsluttes denne anmodning om elektronisk underskrift: Dokumentet afvises, og afsenderen skal i stedet give dig det på papir eller på anden måde. Tilbagekaldelsen påvirker ikke retsvirkningen af det, du tidligere har underskrevet elektronisk.',
  'Omfang. Dit samtykke gælder dette dokument og de meddelelser om det, som vi sender dig på e-mail.',
  'Hardware og software. Du skal bruge en enhed med internetadgang, en opdateret webbrowser (f.eks. en nyere version af Chrome, Edge, Firefox eller Safari) med JavaScript slået til, en e-mailkonto og mulighed for at se og gemme eller udskrive PDF-filer.',
  'Opdatering af dine kontaktoplysninger. Hvis din e-mailadresse eller andre kontaktoplysninger ændres, skal du give afsenderen besked, så afsenderen kan kontakte dig om dette dokument.',
  'Ved at vælge »Jeg accepterer« bekræfter du, at du kan få adgang til og læse disse oplysninger og dokumenter i PDF-format, og at du giver samtykke til brug af elektroniske dokumenter og signaturer for dette dokument.',
];
